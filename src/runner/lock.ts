/**
 * One runner per data folder: `serve` and `run` hold `runner.lock` (their pid), so two processes
 * never run chains against the same database, and `watchkeeper stop` knows whom to signal.
 * A lock left by a process that no longer exists is taken over; whoever takes the lock then runs
 * the start-up recovery (recovery.ts) before any session, since that process may have died with
 * a session running.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { AppError } from '../errors.js';
import { makeDir } from '../make-dir.js';
import { processAlive as alive } from '../process/alive.js';

export interface RunnerLock {
  path: string;
  release(): void;
}

export interface LockHolder {
  pid: number;
  kind: string;
  since: number;
}

export function lockPath(dataDir: string): string {
  return join(dataDir, 'runner.lock');
}

/** The live process holding the lock, or null. */
export function lockHolder(dataDir: string): LockHolder | null {
  try {
    const holder = JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as LockHolder;
    return typeof holder.pid === 'number' && alive(holder.pid) ? holder : null;
  } catch {
    return null;
  }
}

export function acquireRunnerLock(dataDir: string, kind: 'serve' | 'run', now: number): RunnerLock {
  makeDir(dataDir);
  const path = lockPath(dataDir);
  const holder: LockHolder = { pid: process.pid, kind, since: now };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(path, JSON.stringify(holder), { flag: 'wx' });
      return {
        path,
        release: () => {
          if (lockHolder(dataDir)?.pid === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const other = lockHolder(dataDir);
      // A lock naming this very process is stale too: a container restarted after its
      // watchkeeper was killed often gives the new one the same pid.
      if (other && other.pid !== process.pid) {
        throw new AppError(
          'busy',
          `another watchkeeper ${other.kind} (pid ${other.pid}) is running against ${dataDir}; ` +
            'stop it first, or use its dashboard or API to trigger runs',
        );
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new AppError('busy', `cannot take the runner lock ${path}`);
}
