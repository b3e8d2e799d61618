/**
 * The category a text most likely belongs to, by the words of each kind of operational
 * knowledge (`behavior` when none fits): for writers that give no category (a memory tool, the
 * MCP memory server's observations).
 */
import type { Category } from './policy.js';

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
