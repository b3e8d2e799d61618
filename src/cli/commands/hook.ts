/**
 * `watchkeeper hook pre-tool-use`: the Claude CLI runs it before every Bash call and every call
 * of another server's MCP tool in a session, and before every file read or edit when there are
 * repositories (registered through --settings); the runbook rules are checked in hook-rules.ts.
 * Exit 0 lets the call run; exit 2 blocks it, and the reason on stderr becomes the tool result
 * the model sees. It runs before every call, so what most calls need (reading the command) is all
 * it loads: the configuration and the store are imported only for a call that needs them.
 */
import { toolIntents } from '../../runner/pre-tool-use/tool-check.js';
import { usageError } from '../args.js';
import { type CliIo, readStdin } from '../io.js';
import { conversationHook } from './conversation-hooks.js';
import { refuseByRule, runbookRules } from './hook-rules.js';

const MAX_INPUT = 10 * 1024 * 1024;

function intOrNull(value: string | undefined): number | null {
  return value && /^\d+$/.test(value) ? Number(value) : null;
}

export async function hookCommand(argv: string[], io: CliIo): Promise<number> {
  const event = argv[0];
  if (argv.length !== 1 || !['pre-tool-use', 'user-prompt-submit', 'stop'].includes(event!)) {
    throw usageError(
      'usage: watchkeeper hook pre-tool-use|user-prompt-submit|stop (reads the hook JSON on stdin)',
    );
  }
  if (event === 'user-prompt-submit' || event === 'stop') {
    let body: unknown = null;
    try {
      body = JSON.parse(await readStdin(io, MAX_INPUT));
    } catch {
      return 0; // nothing we can read: nothing to post, and the session goes on
    }
    return conversationHook(event, body, io);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(await readStdin(io, MAX_INPUT));
  } catch {
    return 0; // not a tool call we can read: nothing to enforce
  }
  const tier = intOrNull(io.env.WATCHKEEPER_TIER);
  const sessionId = intOrNull(io.env.WATCHKEEPER_SESSION_ID);
  const rules = await runbookRules(payload, io.env, tier);
  const found = await toolIntents(payload, rules?.watch);
  const refused = await refuseByRule(payload, rules, io, sessionId);
  if (refused !== null) return refused;
  // Most calls are not remediation: answer without touching the database.
  if (found === null || (found.intents.length === 0 && found.refusals.length === 0)) return 0;
  try {
    const [{ loadConfig }, { openStores }, { recordTrigger }, { decidePreToolUse }] =
      await Promise.all([
        import('../../config/index.js'),
        import('../../db/index.js'),
        import('../../notify/index.js'),
        import('../../runner/pre-tool-use.js'),
      ]);
    const config = loadConfig(io.env);
    const stores = openStores(config.fleet.databaseUrl ?? config.dbPath, {
      instance: config.fleet.instance,
    });
    try {
      const decision = await decidePreToolUse(payload, {
        stores,
        limits: config.cooldowns,
        clock: io.clock,
        sessionId,
        tier,
        dryRun: config.runner.dryRun,
        sharedServices: config.fleet.cooldownServices,
        guard: config.guard,
        // Recorded only: the serving process delivers it (it knows the targets).
        onAlert: (alert) =>
          void recordTrigger(stores.notifications, config.notifications, alert, io.clock.now()),
      });
      if (decision.stderr) io.stderr(`${decision.stderr}\n`);
      return decision.exitCode;
    } finally {
      stores.close();
    }
  } catch (err) {
    // Fail closed for restarts and redeployments: an unchecked one could exceed the limits.
    io.stderr(
      `watchkeeper could not check the cooldowns for this command (${(err as Error).message}); ` +
        'refusing it to be safe. Report that a human is needed.\n',
    );
    return 2;
  }
}
