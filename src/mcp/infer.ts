/**
 * What a memory tool may leave out, inferred from the text: the category (by the words of each
 * kind of operational knowledge; `behavior` when none fits) and the service (the one known
 * service the text names, if exactly one). A wrong guess costs little: the operator can edit it,
 * and dedup compares memories of a service whatever their category.
 */
import { type Category } from '../memory/index.js';

// Tried in this order; the first with the most matching words wins.
const CATEGORY_WORDS: [Category, RegExp][] = [
  [
    'remediation',
    /\b(restart(ed|ing|s)?|fix(ed|es)?|recover(s|ed|y)?|workaround|resolv(e|ed|es)|remed(y|iate|iation)|rollback|roll back|clear(ed|ing)? the|reboot(ed)?)\b/,
  ],
  [
    'maintenance',
    /\b(backups?|nightly|weekly|daily|cron|scheduled|schedule|rotat(e|es|ion)|upgrad(e|es|ed)|updat(e|es|ed)|patch(es|ed)?|vacuum|prune|scan|renew(al|s|ed)?|certificate|maintenance)\b/,
  ],
  [
    'dependency',
    /\b(depends?|dependency|dependencies|requires?|needs?|waits? for|after|before|upstream|downstream|behind|mounts?|relies)\b/,
  ],
  [
    'timing',
    /\b(\d+\s*(ms|s|sec|secs|seconds?|m|mins?|minutes?|h|hours?)|takes?|slow|fast|latency|timeouts?|seconds?|minutes?|hours?|startup|start-up|boot time|duration)\b/,
  ],
];

/** The category whose words the text uses most (the earlier one on a tie), else behavior. */
export function inferCategory(text: string): Category {
  const lower = text.toLowerCase();
  let best: Category = 'behavior';
  let most = 0;
  for (const [category, words] of CATEGORY_WORDS) {
    const n = lower.match(new RegExp(words.source, 'g'))?.length ?? 0;
    if (n > most) {
      best = category;
      most = n;
    }
  }
  return best;
}

/** The one known service the text names as a word (`jellyfin`, `postgresql`), or null. */
export function inferService(text: string, known: readonly string[]): string | null {
  const words = new Set(text.toLowerCase().match(/[a-z0-9][a-z0-9._-]*[a-z0-9]|[a-z0-9]/g) ?? []);
  const named = known.filter((name) => words.has(name.toLowerCase()));
  return named.length === 1 ? named[0]! : null;
}
