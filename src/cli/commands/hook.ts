/**
 * `watchkeeper hook pre-tool-use`: the Claude CLI runs it before every Bash call of a session
 * (registered through --settings). Exit 0 lets the call run; exit 2 blocks it, and the reason on
 * stderr becomes the tool result the model sees.
 */
import { loadConfig } from '../../config.js';
import { openStores } from '../../db/index.js';
import { remediationIntents } from '../../runner/command-guard.js';
import { bashCommand, decidePreToolUse } from '../../runner/pre-tool-use.js';
import { usageError } from '../args.js';
import type { CliIo } from '../io.js';

const MAX_INPUT = 10 * 1024 * 1024;

async function readAll(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    size += b.length;
    if (size > MAX_INPUT) break;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function intOrNull(value: string | undefined): number | null {
  return value && /^\d+$/.test(value) ? Number(value) : null;
}

export async function hookCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] !== 'pre-tool-use' || argv.length > 1) {
    throw usageError('usage: watchkeeper hook pre-tool-use (reads the hook JSON on stdin)');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(await readAll(io));
  } catch {
    return 0; // not a tool call we can read: nothing to enforce
  }
  const command = bashCommand(payload);
  // Most commands are not remediation: answer without touching the database.
  if (command === null || (await remediationIntents(command)).length === 0) return 0;
  try {
    const config = loadConfig(io.env);
    const stores = openStores(config.dbPath);
    try {
      const decision = await decidePreToolUse(payload, {
        stores,
        limits: config.cooldowns,
        clock: io.clock,
        sessionId: intOrNull(io.env.WATCHKEEPER_SESSION_ID),
        tier: intOrNull(io.env.WATCHKEEPER_TIER),
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
