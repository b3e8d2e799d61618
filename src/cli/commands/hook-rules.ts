/**
 * The runbook rules' part of `watchkeeper hook pre-tool-use`: the repositories' checkable rules
 * for the call (the repos folder, the tier from WATCHKEEPER_TIER), and a refusal, told to the
 * model and recorded as a system event so the operator sees it.
 */
import type { rulesFor } from '../../runner/pre-tool-use/rules-for.js';
import type { CliIo } from '../io.js';

export type HookRules = Awaited<ReturnType<typeof rulesFor>>;

/**
 * The repos folder: in a session, the one its runner resolved and set in the CLI's environment
 * (WATCHKEEPER_REPOS_DIR, or none), without loading the configuration; elsewhere the
 * configuration's. Undefined when the configuration cannot be read.
 */
async function reposDirOf(env: CliIo['env']): Promise<string | null | undefined> {
  if (env.WATCHKEEPER_SESSION_ID) return env.WATCHKEEPER_REPOS_DIR || null;
  try {
    const { loadConfig } = await import('../../config/index.js');
    return loadConfig(env).runbooks.reposDir;
  } catch {
    return undefined;
  }
}

/** The rules to check the call against; none when the configuration cannot be read. */
export async function runbookRules(
  payload: unknown,
  env: CliIo['env'],
  tier: number | null,
): Promise<HookRules> {
  const reposDir = await reposDirOf(env);
  if (!reposDir) return null;
  const { rulesFor } = await import('../../runner/pre-tool-use/rules-for.js');
  return rulesFor(payload, { reposDir, tier, fallbackCwd: process.cwd() });
}

async function recordRefusal(io: CliIo, reason: string, sessionId: number | null): Promise<void> {
  try {
    const [{ loadConfig }, { openStores }] = await Promise.all([
      import('../../config/index.js'),
      import('../../db/index.js'),
    ]);
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
  if (!rules) return null;
  const { runbookRefusal } = await import('../../runner/pre-tool-use/runbook-rules.js');
  const reason = await runbookRefusal(payload, rules.ctx, rules.watch);
  if (!reason) return null;
  io.stderr(`${reason}\n`);
  await recordRefusal(io, reason, sessionId);
  return 2;
}
