/**
 * Indexing jobs for one file never run at the same time: each holds a lock file (its pid) in
 * `<data>/graph-locks/`. A job that finds the lock held by a live process does not wait and does
 * not run: it leaves a note that more was asked, and the holder runs once more before it lets go,
 * so nothing appended in the meantime is missed (the Stop hook fires after every turn, and turns
 * can come faster than a slow index). A lock left by a dead process is taken over.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { makeDir } from '../make-dir.js';
import { processAlive as alive } from '../process/alive.js';

function holderOf(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** In this process: the jobs running per file (serve may be asked twice at once). */
const running = new Map<string, Promise<unknown>>();

export type Locked<T> = { ran: true; value: T } | { ran: false; holder: number };

/**
 * Runs `job` holding the file's lock, again while someone asked meanwhile; when another live
 * process holds it, records the request for that process and returns `{ran: false}`.
 */
export async function withFileLock<T>(
  lockDir: string,
  file: string,
  job: () => Promise<T>,
): Promise<Locked<T>> {
  const inProcess = running.get(file);
  if (inProcess) await inProcess.catch(() => undefined);
  makeDir(lockDir);
  const name = createHash('sha256').update(file).digest('hex').slice(0, 32);
  const lock = join(lockDir, `${name}.lock`);
  const again = join(lockDir, `${name}.again`);
  for (let attempt = 0; ; attempt += 1) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = holderOf(lock);
      if (holder !== null && holder !== process.pid) {
        writeFileSync(again, String(process.pid));
        return { ran: false, holder };
      }
      if (attempt > 0) throw err;
      rmSync(lock, { force: true }); // left by a process that is gone
    }
  }
  const run = (async () => {
    try {
      let value: T;
      do {
        rmSync(again, { force: true });
        value = await job();
      } while (existsSync(again));
      return value;
    } finally {
      rmSync(lock, { force: true });
    }
  })();
  running.set(file, run);
  let value: T;
  try {
    value = await run;
  } finally {
    if (running.get(file) === run) running.delete(file);
  }
  // Asked for between the last run and letting go: run once more.
  if (existsSync(again)) return withFileLock(lockDir, file, job);
  return { ran: true, value };
}
