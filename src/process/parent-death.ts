/**
 * Asks the kernel to end the CLI when watchkeeper dies (Linux's parent-death signal), so that a
 * `kill -9` of `serve` does not leave a CLI waiting on a tool or the API with no timeout. Node
 * cannot call prctl itself: util-linux's `setpriv --pdeathsig KILL` is put in front of the CLI
 * where it is installed. setpriv sets the signal in the child and then execs the CLI, and the
 * setting survives exec (only a set-user-ID or capability-raising exec clears it); the pid, and so
 * the process group of the detached spawn, stay the CLI's. The signal fires when the thread that
 * spawned the child dies: Node spawns from its main thread, so that is when watchkeeper exits.
 *
 * Limits, left to the start-up recovery (src/runner/recovery.ts): the signal reaches the CLI
 * only, not the tools it started in its group; and a parent dying in the instant between the
 * spawn and setpriv's prctl is not seen.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export const PARENT_DEATH_SIGNAL = 'KILL';

/** The executable `name` resolves to (as execvp would: a path with a slash, else PATH), or null. */
export function findExecutable(name: string, path: string, cwd: string): string | null {
  const candidates = name.includes('/')
    ? [isAbsolute(name) ? name : resolve(cwd, name)]
    : path
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => resolve(cwd, join(dir, name)));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here, or not executable
    }
  }
  return null;
}

export interface SpawnCommand {
  bin: string;
  args: string[];
}

/**
 * `bin args` behind `setpriv --pdeathsig KILL` on Linux when setpriv is on the child's PATH.
 * When the CLI itself cannot be found the command is left as it is, so that the spawn fails the
 * way it always did (ENOENT, EACCES) instead of as setpriv's exit code 127.
 */
export function withParentDeathSignal(
  cmd: SpawnCommand,
  where: { path: string; cwd: string; platform?: NodeJS.Platform },
): SpawnCommand {
  if ((where.platform ?? process.platform) !== 'linux') return cmd;
  const setpriv = findExecutable('setpriv', where.path, where.cwd);
  const target = findExecutable(cmd.bin, where.path, where.cwd);
  if (setpriv === null || target === null) return cmd;
  return { bin: setpriv, args: ['--pdeathsig', PARENT_DEATH_SIGNAL, '--', target, ...cmd.args] };
}
