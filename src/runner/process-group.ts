/**
 * What is left of a process group, read from Linux's /proc: its live members, and whether any of
 * them carries a session's marker in its environment. Used at start-up to end the CLI of a
 * session whose watchkeeper was killed, without ever signalling a group that is not ours.
 */
import { readdirSync, readFileSync } from 'node:fs';

const PROC = '/proc';

/** State, ppid and pgrp from /proc/<pid>/stat (the command name may hold spaces and parens). */
function statOf(pid: string): { state: string; pgrp: number } | null {
  try {
    const stat = readFileSync(`${PROC}/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0] ?? '', pgrp: Number(rest[2]) };
  } catch {
    return null; // exited while we looked
  }
}

/** True where /proc can tell group members apart (Linux); elsewhere nothing is verified. */
export function canInspectGroups(): boolean {
  try {
    readFileSync(`${PROC}/self/stat`, 'utf8');
    return true;
  } catch {
    return false;
  }
}

/** Pids of the group's members that still run (zombies have finished: they hold nothing). */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync(PROC);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const s = statOf(name);
    if (s && s.pgrp === pgid && s.state !== 'Z' && s.state !== 'X') out.push(Number(name));
  }
  return out;
}

/**
 * True when the process's environment, as it was at exec, holds every `name=value` of `marker`.
 * A process of another user cannot be read, and so is never taken for ours.
 */
export function carriesMarker(pid: number, marker: Record<string, string>): boolean {
  let environ: string;
  try {
    environ = readFileSync(`${PROC}/${pid}/environ`, 'utf8');
  } catch {
    return false;
  }
  const vars = new Set(environ.split('\0'));
  return Object.entries(marker).every(([k, v]) => vars.has(`${k}=${v}`));
}

/** Sends `signal` (0: none, only look) to the whole group; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: gone; EPERM: not ours to signal
  }
}
