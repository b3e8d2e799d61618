/**
 * The rules of a manifest that can be checked, not only read: "`ansible-playbook` requires tier
 * 3" (a command family and the lowest tier that may run it) and "read-only" / "never modify
 * files here" (nothing inside the repository may be written). The PreToolUse guard enforces
 * them; every rule, checkable or not, is also given to the agent as written.
 */
import type { EnforcedRule, Tier } from './types.js';

const REQUIRES = /\brequires?\s+(?:\w+\s+){0,3}?tier\s*([1-3])\b/i;
const READ_ONLY =
  /\bread[- ]only\b|\bnever\s+(?:modify|change|edit|write(?:\s+to)?|touch)\s+(?:any\s+)?(?:files?|anything)\s+(?:here|in\s+(?:this|the)\s+repo(?:sitory)?)\b|\bnever\s+modify\s+(?:this|the)\s+repo(?:sitory)?\b/i;

/** What a rule's text asks the guard to enforce, if anything. */
export function enforcedRule(text: string, line: number): EnforcedRule | null {
  const requires = REQUIRES.exec(text);
  if (requires) {
    // The command words are the backticked spans before "requires".
    const head = text.slice(0, requires.index);
    const commands = [...head.matchAll(/`([^`]+)`/g)]
      .map((m) => m[1]!.trim().split(/\s+/))
      .filter((words) => words.length > 0 && words[0] !== '');
    if (commands.length > 0) {
      return { kind: 'tier', text, line, commands, tier: Number(requires[1]) as Tier };
    }
  }
  if (READ_ONLY.test(text)) return { kind: 'read-only', text, line };
  return null;
}
