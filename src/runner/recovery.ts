/**
 * Start-up recovery, run by whoever has just taken the runner lock and before its scheduler
 * starts. A session still `running` then belongs to a watchkeeper that was killed (kill -9, OOM,
 * power loss): nothing will ever finish its row, and its CLI, reparented, may still be waiting
 * on a tool with no timeout. Each such row becomes `interrupted`, and what is left of its
 * process group is ended: SIGTERM to the group, SIGKILL after the grace period.
 */
import type { SessionStore } from '../db/index.js';
import type { Logger } from '../log.js';
import { emitAlert, type OnAlert } from './alerts.js';
import { canInspectGroups, carriesMarker, groupMembers, signalGroup } from './process-group.js';

export interface RecoveryDeps {
  sessions: SessionStore;
  /** The data folder, as the CLI was told it (`WATCHKEEPER_DATA_DIR`): part of the marker. */
  dataDir: string;
  killGraceMs: number;
  now: () => number;
  log: Logger;
  /** Told of each interrupted session (notifications). */
  onAlert?: OnAlert;
}

/** What start-up found of an interrupted session's processes. */
export type Leftover =
  | 'none' // never spawned, or the group is gone
  | 'ended' // the group was ours and has been ended
  | 'survived' // the group was ours but was still there after SIGKILL
  | 'not-ours' // the recorded group id now belongs to other processes: left alone
  | 'unverifiable'; // no /proc to check it by: left alone

export interface RecoveredSession {
  sessionId: number;
  pgid: number | null;
  leftover: Leftover;
}

const POLL_MS = 50;
const AFTER_KILL_MS = 2000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const INTERRUPTED = 'interrupted: watchkeeper stopped unexpectedly while this session was running';
const DETAIL: Record<Leftover, (pgid: number | null) => string> = {
  none: () => '',
  ended: (g) => `; its leftover processes (process group ${g}) were ended at start-up`,
  survived: (g) => `; its process group ${g} was still there after SIGKILL`,
  'not-ours': (g) => `; process group ${g} now belongs to other processes and was left alone`,
  unverifiable: (g) =>
    `; process group ${g} could not be checked on this system and was left alone`,
};

/**
 * Is the group still this session's? The CLI leads its own group (detached spawn), and every
 * process it starts inherits `WATCHKEEPER_SESSION_ID` and `WATCHKEEPER_DATA_DIR` (set for the
 * PreToolUse hook), which Linux keeps readable in /proc/<pid>/environ as they were at exec.
 * That marker is checked rather than the leader's /proc/<pid>/cmdline because the leader may be
 * gone (the kernel's parent-death signal ends it while its tools live on in the group) and a
 * Node CLI rewrites its cmdline when it sets its process title. One marked member is enough:
 * while any member lives the kernel cannot hand the group id to anyone else, so a reused id can
 * only hold processes that never had our marker.
 */
function isOurs(pgid: number, sessionId: number, dataDir: string): boolean {
  const marker = { WATCHKEEPER_SESSION_ID: String(sessionId), WATCHKEEPER_DATA_DIR: dataDir };
  return groupMembers(pgid).some((pid) => carriesMarker(pid, marker));
}

/** Ends the groups: SIGTERM, then SIGKILL to those still there after `graceMs`. */
async function endGroups(pgids: number[], graceMs: number): Promise<Set<number>> {
  // A group that was seen empty is never signalled again: its id could then be reused. While it
  // has members (checked every POLL_MS) it is the group verified as ours.
  let alive = pgids.filter((g) => signalGroup(g, 'SIGTERM'));
  const until = (deadline: number) => async () => {
    while (alive.length > 0 && Date.now() < deadline) {
      await sleep(POLL_MS);
      alive = alive.filter((g) => groupMembers(g).length > 0);
    }
  };
  await until(Date.now() + graceMs)();
  alive = alive.filter((g) => signalGroup(g, 'SIGKILL'));
  await until(Date.now() + AFTER_KILL_MS)();
  return new Set(alive);
}

/**
 * Marks every `running` session of this instance `interrupted` and ends the process groups left
 * behind. Other instances' sessions are left to them, or to the lease (lease.ts).
 */
export async function recoverInterruptedSessions(d: RecoveryDeps): Promise<RecoveredSession[]> {
  const rows = d.sessions.running();
  if (rows.length === 0) return [];
  const foundAt = d.now();
  const inspect = canInspectGroups();
  const found: RecoveredSession[] = rows.map((row) => {
    let leftover: Leftover = 'none';
    if (row.pgid !== null) {
      if (!inspect) leftover = signalGroup(row.pgid, 0) ? 'unverifiable' : 'none';
      else if (groupMembers(row.pgid).length === 0) leftover = 'none';
      else leftover = isOurs(row.pgid, row.id, d.dataDir) ? 'ended' : 'not-ours';
    }
    return { sessionId: row.id, pgid: row.pgid, leftover };
  });

  const ours = found.filter((f) => f.leftover === 'ended').map((f) => f.pgid!);
  if (ours.length > 0) {
    const survivors = await endGroups(ours, d.killGraceMs);
    for (const f of found) if (f.pgid !== null && survivors.has(f.pgid)) f.leftover = 'survived';
  }

  for (const f of found) {
    const error = INTERRUPTED + DETAIL[f.leftover](f.pgid);
    d.sessions.markInterrupted(f.sessionId, foundAt, error);
    emitAlert(
      d.onAlert,
      { kind: 'session_ended', status: 'interrupted', error, sessionId: f.sessionId, tier: null },
      d.log,
    );
    const fields = { session: f.sessionId, pgid: f.pgid ?? undefined, leftover: f.leftover };
    if (f.leftover === 'none' || f.leftover === 'ended')
      d.log.warn('session interrupted: watchkeeper stopped while it ran', fields);
    else d.log.error('session interrupted; its processes may still run', fields);
  }
  return found;
}
