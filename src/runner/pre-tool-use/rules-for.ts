/**
 * The runbook rules a tool call is checked against, when the repos folder has any: the
 * manifests' checkable rules, the session's tier and the folder the call runs in. Null when
 * there is nothing to check, so most calls cost one read of the repos folder.
 */
import { repositoryRules } from '../../runbooks/enforced.js';
import type { RuleContext } from './runbook-rules.js';
import { RuleWatch } from './rule-watch.js';

export async function rulesFor(
  payload: unknown,
  o: { reposDir: string | null; tier: number | null; fallbackCwd: string },
): Promise<{ ctx: RuleContext; watch: RuleWatch } | null> {
  if (!o.reposDir) return null;
  const repos = await repositoryRules(o.reposDir);
  const p = payload as { cwd?: unknown; tool_name?: unknown } | null;
  // A playbook's tier holds whatever the manifests say: reads (Read, `cat`) are always checked.
  const reads = p?.tool_name === 'Read' || p?.tool_name === 'Bash';
  if (!reads && repos.every((r) => r.rules.length === 0)) return null;
  const cwd = typeof p?.cwd === 'string' && p.cwd.startsWith('/') ? p.cwd : o.fallbackCwd;
  return { ctx: { repos, tier: o.tier, cwd }, watch: new RuleWatch(cwd) };
}
