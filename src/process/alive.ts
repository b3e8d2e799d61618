import { readFileSync } from 'node:fs';

/** Whether a process id names a live process: signal 0 checks without sending anything. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When a process started, in clock ticks since boot (field 22 of `/proc/PID/stat`), or null where
 * there is no /proc. A pid is reused once its process is gone; a pid and its start time together
 * name one process, so a lock naming them is not mistaken for a later process's.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process that was `pid`, started at `start` (null: unknown), still runs. */
export function sameProcessAlive(pid: number, start: string | null): boolean {
  if (!processAlive(pid)) return false;
  if (start === null) return true;
  const now = processStartTime(pid);
  return now === null || now === start;
}
