/**
 * Quoting that changes text before the guard reads it: `$'...'` escapes, and the few
 * backslash escapes double quotes and unquoted here-docs keep. Pure.
 */

/** `$'...'` escapes. */
export function ansiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/g,
    (_, e: string) => {
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        a: '\u0007',
        b: '\b',
        e: '\u001b',
        E: '\u001b',
        f: '\f',
        v: '\v',
      };
      if (simple[e] !== undefined) return simple[e]!;
      if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
      if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
      if (e.startsWith('c')) return String.fromCharCode(e.charCodeAt(1) & 31);
      return e;
    },
  );
}

/** Backslash escapes inside double quotes (and unquoted here-docs): only \$ \` \" \\ and newline. */
export function doubleQuoted(text: string, inHeredoc = false): string {
  return text.replace(inHeredoc ? /\\([$`\\\n])/g : /\\([$`"\\\n])/g, (_, c: string) =>
    c === '\n' ? '' : c,
  );
}
