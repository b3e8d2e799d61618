/**
 * The guard of a long-running command (serve, run, mcp): a promise rejected with no handler
 * anywhere (a bug: every background loop handles its own failures) is logged as an error with
 * its stack and marks the process degraded (/api/v1/health, /metrics), instead of Node's default
 * of ending the process, and with it every session it runs.
 */
import type { Logger } from '../log.js';
import { noteUnhandledError } from '../metrics/index.js';
import type { CliIo } from './io.js';

/** Installs the guard on the command's process; returns what removes it. */
export function installProcessGuard(
  io: Pick<CliIo, 'onUnhandledRejection' | 'clock'>,
  log: Logger,
): () => void {
  if (!io.onUnhandledRejection) return () => {};
  return io.onUnhandledRejection((reason) => {
    const error = reason instanceof Error ? reason : new Error(String(reason));
    log.error('unhandled rejection: a background task failed; the process goes on', { error });
    noteUnhandledError(io.clock.now());
  });
}
