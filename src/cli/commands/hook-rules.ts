/**
 * The runbook rules' part of `watchkeeper hook pre-tool-use`: the repositories' checkable rules
 * for the call (the repos folder from the configuration, the tier from WATCHKEEPER_TIER), and a
 * refusal, told to the model and recorded as a system event so the operator sees it.
 */
import { loadConfig } from '../../config/index.js';
import { openStores } from '../../db/index.js';
import { rulesFor, runbookRefusal } from '../../runner/pre-tool-use.js';
import type { CliIo } from '../io.js';

export type HookRules = Awaited<ReturnType<typeof rulesFor>>;

/** The rules to check the call against; none when the configuration cannot be read. */
export async function runbookRules(
  payload: unknown,
  env: CliIo['env'],
  tier: number | null,
): Promise<HookRules> {
  let reposDir: string | null;
  try {
    reposDir = loadConfig(env).runbooks.reposDir;
  } catch {
    return null;
  }
  return rulesFor(payload, { reposDir, tier, fallbackCwd: process.cwd() });
}

function recordRefusal(io: CliIo, reason: string, sessionId: number | null): void {
  try {
    const config = loadConfig(io.env);
    const stores = openStores(config.fleet.databaseUrl ?? config.dbPath, {
      instance: config.fleet.instance,
    });
    try {
      const text = reason.replace(/^watchkeeper: refused: /, '');
      stores.events.insert({
        sessionId,
        source: 'system',
        level: 'warning',
        service: null,
        message: `Blocked by a runbook rule: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`,
        createdAt: io.clock.now(),
      });
    } finally {
      stores.close();
    }
  } catch {
    // The refusal holds whether or not it could be recorded.
  }
}

/** Exit code 2 (with the reason on stderr) when a rule refuses the call; null otherwise. */
export async function refuseByRule(
  payload: unknown,
  rules: HookRules,
  io: CliIo,
  sessionId: number | null,
): Promise<2 | null> {
  const reason = rules && (await runbookRefusal(payload, rules.ctx, rules.watch));
  if (!reason) return null;
  io.stderr(`${reason}\n`);
  recordRefusal(io, reason, sessionId);
  return 2;
}
