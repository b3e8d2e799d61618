/**
 * `watchkeeper ARGS` in a child process with serve's own environment (its settings: the
 * database, the data folder, the embeddings): the jobs serve on PostgreSQL hands to a process of
 * their own, so that their many round trips do not stop its event loop (graph-index-child.ts,
 * import-child.ts).
 */
import { execa } from 'execa';

import { WATCHKEEPER_BIN } from '../runner/cli-args.js';

export interface ChildOutcome {
  /** The exit code, or the signal that ended it. */
  ended: number | string;
  stdout: string;
  /** The child's last line on stderr without its "watchkeeper: " prefix (its error), or "". */
  said: string;
}

export async function runWatchkeeperChild(
  env: Record<string, string | undefined>,
  args: readonly string[],
  maxBuffer: number,
): Promise<ChildOutcome> {
  const child = await execa(process.execPath, [WATCHKEEPER_BIN, ...args], {
    env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    maxBuffer,
  });
  const said =
    child.stderr
      .trim()
      .split('\n')
      .pop()
      ?.replace(/^watchkeeper: /, '') ?? '';
  return { ended: child.exitCode ?? child.signal ?? 'unknown', stdout: child.stdout, said };
}
