/**
 * The Stop hook's requests when no serve takes them, and the one detached indexer that reads
 * them. Each hook leaves its transcript (and the end of the turn's last message) as a file in
 * `<data>/graph-hook/requests/` (one per transcript: a later turn's request replaces the earlier
 * one), then starts an indexer only if it can take `<data>/graph-hook/indexer.lock`; the indexer
 * reads requests until none is left. Twenty hooks at once start one indexer, not twenty.
 *
 * The order makes a lost request impossible: a hook writes its request before it looks at the
 * lock, and the indexer lets go of the lock before it looks for requests one last time, so
 * either the hook finds the lock free (and starts an indexer) or the indexer finds the request.
 * The lock names its holder by pid and start time (/proc), so a pid reused after a crash does not
 * keep it held. Node builtins only (and the folder helper): the hook runs after every turn.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { makeDir } from '../make-dir.js';
import { processStartTime, sameProcessAlive } from '../process/alive.js';

const FOLDER = 'graph-hook';
/** Requests one round of the indexer takes (the rest wait for its next round). */
const ROUND = 1000;

export interface IndexRequest {
  transcriptPath: string;
  untilText: string | null;
}

interface Holder {
  pid: number;
  start: string | null;
}

const requestsDir = (dataDir: string) => join(dataDir, FOLDER, 'requests');
const lockFile = (dataDir: string) => join(dataDir, FOLDER, 'indexer.lock');

/** Leaves a request for the indexer (written whole, then renamed: never read half-written). */
export function leaveRequest(dataDir: string, r: IndexRequest): void {
  const dir = requestsDir(dataDir);
  makeDir(dir, 0o700);
  const name = createHash('sha256').update(r.transcriptPath).digest('hex').slice(0, 32);
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(r), { mode: 0o600 });
  renameSync(tmp, join(dir, `${name}.json`));
}

function names(dataDir: string): string[] {
  try {
    return readdirSync(requestsDir(dataDir)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

export function hasRequests(dataDir: string): boolean {
  return names(dataDir).length > 0;
}

/** Takes (reads and removes) the waiting requests, oldest first. */
export function takeRequests(dataDir: string): IndexRequest[] {
  const dir = requestsDir(dataDir);
  const dated = names(dataDir).flatMap((n) => {
    const mtimeMs = statSync(join(dir, n), { throwIfNoEntry: false })?.mtimeMs;
    return mtimeMs === undefined ? [] : [{ n, mtimeMs }];
  });
  dated.sort((a, b) => a.mtimeMs - b.mtimeMs || a.n.localeCompare(b.n));
  const out: IndexRequest[] = [];
  for (const { n } of dated.slice(0, ROUND)) {
    const path = join(dir, n);
    try {
      const r = JSON.parse(readFileSync(path, 'utf8')) as Partial<IndexRequest>;
      if (typeof r.transcriptPath === 'string')
        out.push({
          transcriptPath: r.transcriptPath,
          untilText: typeof r.untilText === 'string' ? r.untilText : null,
        });
    } catch {
      // Unreadable: dropped below, so it is not read again forever.
    }
    rmSync(path, { force: true });
  }
  return out;
}

function holderOf(dataDir: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(lockFile(dataDir), 'utf8')) as Partial<Holder>;
    if (typeof h.pid !== 'number') return null;
    const holder = { pid: h.pid, start: typeof h.start === 'string' ? h.start : null };
    return sameProcessAlive(holder.pid, holder.start) ? holder : null;
  } catch {
    return null;
  }
}

const holderText = (pid: number) => JSON.stringify({ pid, start: processStartTime(pid) });

/**
 * Takes the indexer's lock for `pid`; false when another live process holds it. A lock naming
 * `pid` itself, or `handedBy` (the hook that started this indexer and is handing it over), is
 * this one's.
 */
export function claimIndexerLock(
  dataDir: string,
  o: { pid?: number; handedBy?: number } = {},
): boolean {
  const pid = o.pid ?? process.pid;
  makeDir(join(dataDir, FOLDER), 0o700);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(lockFile(dataDir), holderText(pid), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = holderOf(dataDir);
      if (holder && (holder.pid === pid || holder.pid === o.handedBy)) {
        handIndexerLock(dataDir, holder.pid, pid);
        return true;
      }
      if (holder) return false;
      rmSync(lockFile(dataDir), { force: true }); // left by a process that is gone
    }
  }
  return false;
}

/** Names `to` as the holder of a lock `from` holds (the hook hands it to the indexer it started). */
export function handIndexerLock(dataDir: string, from: number, to: number): void {
  if (from === to) return;
  const h = holderOf(dataDir);
  if (h?.pid !== from) return;
  const tmp = `${lockFile(dataDir)}.${process.pid}.tmp`;
  writeFileSync(tmp, holderText(to), { mode: 0o600 });
  renameSync(tmp, lockFile(dataDir));
}

/** Lets go of the lock, if `pid` holds it. */
export function releaseIndexerLock(dataDir: string, pid = process.pid): void {
  try {
    const h = JSON.parse(readFileSync(lockFile(dataDir), 'utf8')) as Partial<Holder>;
    if (h.pid === pid) rmSync(lockFile(dataDir), { force: true });
  } catch {
    // No lock: nothing to let go of.
  }
}
