/**
 * How `serve` on PostgreSQL imports a file uploaded to the dashboard or the API: in a child
 * process, `watchkeeper import FILE --json` (or `import-mcp-memory`), with serve's own settings.
 * An import writes a transaction per batch of records, each statement a round trip through the
 * synchronous bridge; in serve's process, with the database a network hop away, that would stop
 * the event loop (every page, hook and session stream) for as long as the import runs. The child
 * waits on the network instead, with its own connection and event loop; serve's caches learn
 * of what it wrote from the database's change feed, as of any other instance's writes. On SQLite
 * serve imports in its own process.
 */
import { saysUnreachable } from '../db/index.js';
import { AppError } from '../errors.js';
import type { ImportJson, ImportKind } from '../portability/index.js';
import { runWatchkeeperChild } from './cli-child.js';
import { EXIT_BAD_INPUT } from './exit-codes.js';

/** The report of a 16 MiB upload lists its first items only: this is ample. */
const MAX_OUTPUT = 64 * 1024 * 1024;

/** `env`: serve's environment (its settings: the database, the data folder, the embeddings). */
export function importInChildProcess(
  env: Record<string, string | undefined>,
): (file: string, kind: ImportKind, dryRun: boolean) => Promise<ImportJson> {
  return async (file, kind, dryRun) => {
    const command = kind === 'watchkeeper' ? 'import' : 'import-mcp-memory';
    const args = [command, file, '--json', ...(dryRun ? ['--dry-run'] : [])];
    const child = await runWatchkeeperChild(env, args, MAX_OUTPUT);
    if (child.ended === 0) {
      try {
        return JSON.parse(child.stdout) as ImportJson;
      } catch {
        // no report: said below
      }
    }
    const { said } = child;
    if (child.ended === EXIT_BAD_INPUT) throw new AppError('invalid_input', said);
    if (saysUnreachable(said)) throw new AppError('db_unavailable', said);
    throw new AppError(
      'io_failed',
      `the import in a child process failed (${child.ended}): ${said || 'no report'}`,
    );
  };
}
