/**
 * Every `CLAUDEOPS_*` variable is one watchkeeper reads, or start-up stops naming it: with what to
 * do instead for a Claude Ops setting watchkeeper lacks, with the likely name for a typo.
 */
import { AppError } from '../errors.js';
import { CLAUDEOPS_REFUSED, CLAUDEOPS_RENAMED } from './claudeops-aliases.js';
import { ALIAS_PREFIX, SCHEMA } from './schema.js';

/** Names a typo is most likely meant to be (edit distance at most 3), best first. */
function closestNames(name: string, candidates: string[]): string[] {
  const distance = (a: string, b: string): number => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      for (let j = 1; j <= b.length; j++) {
        row[j] = Math.min(
          prev[j]! + 1,
          row[j - 1]! + 1,
          prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
      }
      prev = row;
    }
    return prev[b.length]!;
  };
  return candidates
    .map((c) => ({ c, d: distance(name, c) }))
    .filter((x) => x.d <= 3)
    .sort((x, y) => x.d - y.d)
    .slice(0, 2)
    .map((x) => x.c);
}

export function checkClaudeOpsNames(env: Record<string, string | undefined>): void {
  const known = [
    ...Object.keys(SCHEMA.shape),
    ...Object.keys(CLAUDEOPS_RENAMED),
    ...Object.keys(CLAUDEOPS_REFUSED),
  ];
  const problems: { name: string; message: string }[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ALIAS_PREFIX) || value === undefined) continue;
    const key = name.slice(ALIAS_PREFIX.length);
    const refused = CLAUDEOPS_REFUSED[key];
    if (refused) {
      if (value.trim() === '' || refused.idle?.(value)) continue;
      problems.push({
        name,
        message: `${name} is a Claude Ops setting watchkeeper does not have: ${refused.replacement}`,
      });
    } else if (!known.includes(key)) {
      const near = closestNames(key, known).map((k) => ALIAS_PREFIX + k);
      problems.push({
        name,
        message:
          `${name} is not a setting watchkeeper or Claude Ops knows` +
          (near.length > 0 ? `: did you mean ${near.join(' or ')}?` : '') +
          ' (README.md, Configuration, lists them)',
      });
    }
  }
  if (problems.length > 0) {
    throw new AppError('config_invalid', problems.map((p) => p.message).join('; '), {
      data: { variable: problems[0]!.name },
    });
  }
}
