/** Payloads a model (or a tool output it quotes) might write, meant to run in the operator's browser. */
export const XSS_CORPUS = [
  '<script>alert("xss-1")</script>',
  '"><img src=x onerror=alert("xss-2")>',
  "' onmouseover='alert(\"xss-3\")' x='",
  '<svg onload=alert("xss-4")><circle r=1></svg>',
  '[click me](javascript:alert("xss-5"))',
  '<a href="javascript:alert(\'xss-6\')">link</a>',
  '</textarea><script>alert("xss-7")</script>',
  '<iframe srcdoc="<script>alert(8)</script>"></iframe>',
  '![img](javascript:alert("xss-9"))',
  '<details open ontoggle=alert("xss-10")>',
];

/** Problems found in an HTML page: executable markup that did not come from the app itself. */
export function unsafeMarkup(html: string): string[] {
  const problems: string[] = [];
  for (const m of html.matchAll(/<script\b[^>]*>/gi)) {
    if (!/^<script src="\/static\/[a-z/.-]+" defer><\/script>$/.test(`${m[0]}</script>`))
      problems.push(m[0]);
  }
  for (const m of html.matchAll(/<[a-z][^>]*\son[a-z]+\s*=[^>]*>/gi)) problems.push(m[0]);
  for (const m of html.matchAll(
    /(?:href|src|action|formaction|srcdoc)\s*=\s*["']?\s*javascript:/gi,
  ))
    problems.push(m[0]);
  for (const m of html.matchAll(/<(iframe|svg|object|embed)\b/gi)) {
    if (!/^<svg class="spark"/.test(html.slice(m.index, m.index + 20))) problems.push(m[0]);
  }
  return problems;
}
