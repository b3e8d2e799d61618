/**
 * `watchkeeper mcp`: the memory tools as an MCP server on stdin/stdout, on the same data folder
 * as `serve` (SQLite in WAL mode, so both may run at once). Sessions watchkeeper runs get it
 * through --mcp-config with their session id and tier in the environment; started by hand (or by
 * `claude mcp add`) it writes as an interactive caller (no session, tier 0). Logs go to stderr:
 * stdout is the JSON-RPC channel.
 */
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';

import { PACKAGE_ROOT, packageVersion } from '../../config/package-root.js';
import type { Stores } from '../../db/index.js';
import type { Logger } from '../../log.js';
import { type Caller, createMemoryServer, LineCappedStdioTransport } from '../../mcp/index.js';
import { openApp } from '../app.js';
import { parse } from '../args.js';
import type { CliIo } from '../io.js';
import { cliLogger } from '../logger.js';
import { installProcessGuard } from '../process-guard.js';

function wholeNumber(value: string | undefined): number | null {
  return value && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

/** The runner's session (WATCHKEEPER_SESSION_ID, WATCHKEEPER_TIER), or an interactive caller. */
export function callerFrom(
  env: Record<string, string | undefined>,
  sessions: Stores['sessions'],
  log: Logger,
): Caller {
  const id = wholeNumber(env.WATCHKEEPER_SESSION_ID);
  if (id === null) return { sessionId: null, tier: 0 };
  const session = sessions.get(id);
  if (!session) {
    log.warn('WATCHKEEPER_SESSION_ID names no session; writing as an interactive caller', { id });
    return { sessionId: null, tier: 0 };
  }
  return { sessionId: session.id, tier: wholeNumber(env.WATCHKEEPER_TIER) ?? session.tier };
}

/**
 * Claude Code starts the server in whatever folder its session runs in: with no data folder set,
 * it opens the one `npm start` keeps in the installed package (its ./data), never a new ./data
 * where it happened to start.
 */
function mcpEnv(env: CliIo['env']): CliIo['env'] {
  if (env.WATCHKEEPER_DATA_DIR || env.CLAUDEOPS_STATE_DIR || env.WATCHKEEPER_DEFAULT_DATA_DIR) {
    return env;
  }
  return { ...env, WATCHKEEPER_DATA_DIR: join(PACKAGE_ROOT, 'data') };
}

export async function mcpCommand(argv: string[], io: CliIo): Promise<number> {
  parse(argv, {});
  const app = openApp({ ...io, env: mcpEnv(io.env) });
  const log = cliLogger(app.config, io);
  const unguard = installProcessGuard(io, log);
  try {
    const caller = callerFrom(io.env, app.stores.sessions, log);
    const server = createMemoryServer(
      { knowledge: app.knowledge, stores: app.stores, caller, clock: io.clock, log },
      packageVersion(),
    );
    // The first tool call should not wait for the model to load.
    let closing = false;
    void app.knowledge.embedding.embedder?.warmUp().catch((err: unknown) => {
      if (closing) return; // closed before it loaded: nothing to report
      log.warn('the embedding model did not load; the tools match by words until it does', {
        error: err as Error,
      });
    });
    const input = Readable.from(io.stdin);
    const output = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        io.stdout(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
        done();
      },
    });
    const unsubscribe: (() => void)[] = [];
    // The client closing stdin ends the server, as does a signal.
    const closed = new Promise<void>((resolve) => {
      input.once('end', resolve);
      input.once('close', resolve);
      unsubscribe.push(io.onSignal('SIGTERM', resolve), io.onSignal('SIGINT', resolve));
    });
    // A request line over the cap is answered with an error and the server reads on.
    await server.connect(new LineCappedStdioTransport(input, output, { log }));
    log.debug('memory tools ready on stdio', { session: caller.sessionId ?? undefined });
    await closed;
    closing = true;
    for (const off of unsubscribe) off();
    await server.close();
    return 0;
  } finally {
    await app.close();
    unguard();
  }
}
