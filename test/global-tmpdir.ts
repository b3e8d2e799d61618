/**
 * Vitest global setup: the run's temporary folders (data folders, SQLite files, the PostgreSQL
 * cluster, browser profiles) go to one folder of their own in memory, /dev/shm, when it is a
 * tmpfs with room to spare, and that folder is removed at the end with whatever a test left.
 *
 * SQLite syncs its file to disk when a connection closes, and so does every CLI, hook and serve
 * process a test starts; on a disk those syncs were about a seventh of the store and CLI tests'
 * time. They are real writes either way: only the medium differs. Where /dev/shm is missing or
 * small (a container's default is 64 MB), the system's temporary folder is used as before.
 * The folder is set as TMPDIR, which node's os.tmpdir(), the child processes and the workers
 * (started after this setup) all read.
 */
import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

const SHM = '/dev/shm';
/** statfs's f_type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** The run writes well under this; a smaller tmpfs is left alone rather than filled. */
const ROOM_NEEDED = 4 * 1024 ** 3;

/** Bytes free in `dir` when it is a tmpfs; 0 otherwise (or when it is missing). */
function memoryRoomIn(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.type === TMPFS_MAGIC ? s.bavail * s.bsize : 0;
  } catch {
    return 0;
  }
}

export default function setup(): () => void {
  if (process.env.WATCHKEEPER_TEST_TMPDIR === 'system' || memoryRoomIn(SHM) < ROOM_NEEDED) {
    return () => {};
  }
  const dir = mkdtempSync(join(SHM, 'watchkeeper-test-run-'));
  // The PostgreSQL server runs as its own user when the tests run as root: it must be able to
  // pass through to its folder, not to list this one.
  chmodSync(dir, 0o711);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
