/**
 * How the simulated model answers a `session-summary` job (src/runner/chain-summary.ts): 2-5
 * sentences built from the prompt, deterministically. The run's line gives the first sentence,
 * and each session's final response its first line of prose (markers left out).
 */
const MARKER_LINE = /^\s*(?:[-*+]\s+)?\[[A-Z]+:[^\]]*\]/;

function sentence(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  const clipped = one.length > 200 ? `${one.slice(0, 199)}…` : one;
  return /[.!?…]$/.test(clipped) ? clipped : `${clipped}.`;
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'An' : 'A');

export function answerSessionSummary(prompt: string): string {
  const run = /^Run: (\d+) session\(s\), tier (\d) to (\d), ended (\S+) \(trigger (\S+)\)\./m.exec(
    prompt,
  );
  const out: string[] = [];
  if (run) {
    const [, n, from, to, status, trigger] = run;
    out.push(
      Number(n) === 1
        ? `${article(trigger!)} ${trigger} run at tier ${from} ended ${status}.`
        : `${article(trigger!)} ${trigger} run of ${n} sessions went from tier ${from} to tier ${to} and ended ${status}.`,
    );
  }
  const sessions = prompt.split(/^## Session #/m).slice(1);
  for (const s of sessions) {
    if (out.length >= 5) break;
    const tier = /^\d+: tier (\d)/.exec(s)?.[1] ?? '?';
    const response = s.slice(s.indexOf('Final response:\n') + 'Final response:\n'.length);
    const line = response
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '' && l !== '(none)' && !MARKER_LINE.test(l));
    if (line) out.push(`Tier ${tier}: ${sentence(line)}`);
  }
  if (out.length < 2) out.push('Nothing else was reported.');
  return out.join(' ');
}
