/**
 * How `serve` on PostgreSQL indexes a transcript for the memory graph: in a child process,
 * `watchkeeper graph index FILE --json`, with serve's own settings. The indexer writes a
 * statement per span, idea, entity and relation, each a round trip through the synchronous
 * bridge; in serve's process, with the database a network hop away, that stopped the event loop
 * for seconds after every session (the fleet bench measured 1.7 s at 2 ms per direction). The
 * child waits on the network instead, with its own connection and event loop; the per-file lock
 * keeps it apart from any other indexer of the same file, and what it read is recorded per batch,
 * so a child cut short resumes where it stopped. On SQLite serve indexes in its own process.
 */
import { saysUnreachable } from '../db/index.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { IndexOptions, QueuedIndex } from '../graph/index.js';
import { runWatchkeeperChild } from './cli-child.js';

/** What `graph index --json` prints (cli/commands/graph/index-command.ts), the part read here. */
interface IndexJson {
  files: { file: string; status: QueuedIndex['status']; lines: number; ideas: number }[];
  errors: { file: string; code: ErrorCode; message: string }[];
}

/** Output a child may print: its JSON report, or an error message. */
const MAX_OUTPUT = 4 * 1024 * 1024;

/** `env`: serve's environment (its settings: the database, the data folder, the graph's). */
export function indexInChildProcess(
  env: Record<string, string | undefined>,
): (file: string, opts: IndexOptions) => Promise<QueuedIndex> {
  return async (file, opts) => {
    const args = ['graph', 'index', file, '--json'];
    if (opts.untilText) args.push('--until-text', opts.untilText);
    const child = await runWatchkeeperChild(env, args, MAX_OUTPUT);
    let report: IndexJson | null = null;
    try {
      report = JSON.parse(child.stdout) as IndexJson;
    } catch {
      // no report: the child failed before it could print one (said on stderr)
    }
    const failure = report?.errors[0];
    if (failure) throw new AppError(failure.code, failure.message);
    const indexed = report?.files.find((f) => f.file === file) ?? report?.files[0];
    if (child.ended === 0 && indexed) return indexed;
    const { said } = child;
    // A database out of reach before any file was read (the child could not open the store):
    // the queue holds the file until the database answers, as it does in process.
    if (!report && saysUnreachable(said)) throw new AppError('db_unavailable', said);
    throw new AppError(
      'io_failed',
      `indexing ${file} in a child process failed (${child.ended}): ${said || 'no message'}`,
    );
  };
}
