/**
 * The cooldown_actions table (restarts and redeployments, per service: attempts the hook let
 * through and outcomes the agent reported) and cooldown_blocks (attempts the hook refused).
 */
import type { CooldownAction } from '../../stream/markers.js';
import { allAwaited, getAwaited, retryWhileMoved, runAwaited, writeAwaited } from '../engine.js';
import type { Db } from '../open.js';

export interface CooldownRow {
  id: number;
  service: string;
  actionType: CooldownAction;
  /** null while the outcome of a hook-recorded attempt is not reported. */
  success: boolean | null;
  source: 'agent' | 'hook';
  command: string | null;
  message: string | null;
  tier: number | null;
  sessionId: number | null;
  createdAt: number;
  /** The sidecar whose session (or hook) took the action; `local` for a lone sidecar. */
  instance: string;
}

/** An action to record: the store stamps its own instance. */
export type NewCooldownAction = Omit<CooldownRow, 'id' | 'instance'>;

export interface CooldownBlockRow {
  id: number;
  service: string;
  actionType: CooldownAction;
  command: string;
  reason: string;
  sessionId: number | null;
  createdAt: number;
}

export interface ReportedOutcome {
  service: string;
  actionType: CooldownAction;
  success: boolean;
  message: string | null;
  tier: number | null;
  sessionId: number | null;
  createdAt: number;
}

/** Tries of an awaited report whose attempt another write settled meanwhile. */
const ATTEMPTS = 5;

const COLUMNS = `id, service, action_type AS actionType, success, source, command, message, tier,
  session_id AS sessionId, created_at AS createdAt, instance`;

type RawCooldown = Omit<CooldownRow, 'success'> & { success: number | null };
const fromRaw = (r: RawCooldown): CooldownRow => ({
  ...r,
  success: r.success === null ? null : r.success === 1,
});

/**
 * `instance`: this sidecar's name, written on every action it records. Limits count this
 * instance's actions, and every instance's on the services the fleet shares (see `counted`).
 */
export function createCooldownStore(db: Db, instance = 'local') {
  const insert = db.prepare(`INSERT INTO cooldown_actions
    (service, action_type, success, source, command, message, tier, session_id, created_at,
    instance)
    VALUES (@service, @actionType, @success, @source, @command, @message, @tier, @sessionId,
    @createdAt, @instance)`);
  const since = db.prepare(`SELECT ${COLUMNS} FROM cooldown_actions WHERE created_at >= ?
    ORDER BY created_at DESC, id DESC`);
  const counted = db.prepare(`SELECT ${COLUMNS} FROM cooldown_actions WHERE created_at >= ?
    AND (instance = ? OR service IN (SELECT value FROM json_each(?)))
    ORDER BY created_at DESC, id DESC`);
  const pendingAttempt = db.prepare(`SELECT id FROM cooldown_actions
    WHERE session_id IS ? AND service = ? AND action_type = ? AND source = 'hook' AND success IS NULL
    AND instance = ?
    ORDER BY id LIMIT 1`);
  const settle = db.prepare('UPDATE cooldown_actions SET success = ?, message = ? WHERE id = ?');
  // Settles an attempt not settled meanwhile (the awaited report's guard).
  const settleOpen = db.prepare(
    'UPDATE cooldown_actions SET success = ?, message = ? WHERE id = ? AND success IS NULL',
  );
  const reported = (o: ReportedOutcome) => ({
    ...o,
    success: o.success ? 1 : 0,
    source: 'agent',
    command: null,
    instance,
  });
  const insertBlock = db.prepare(`INSERT INTO cooldown_blocks
    (service, action_type, command, reason, session_id, created_at)
    VALUES (@service, @actionType, @command, @reason, @sessionId, @createdAt)`);
  const blocksSince = db.prepare(`SELECT id, service, action_type AS actionType, command, reason,
    session_id AS sessionId, created_at AS createdAt FROM cooldown_blocks WHERE created_at >= ?
    ORDER BY created_at DESC, id DESC LIMIT ?`);

  return {
    insert(action: NewCooldownAction): number {
      const success = action.success === null ? null : action.success ? 1 : 0;
      return Number(insert.run({ ...action, success, instance }).lastInsertRowid);
    },
    /**
     * The agent's [COOLDOWN] report: settles the attempt the hook recorded for the same session,
     * service and action, or records a new action when the hook saw none.
     */
    report: db.transaction((o: ReportedOutcome): number => {
      const pending = pendingAttempt.get(o.sessionId, o.service, o.actionType, instance) as
        { id: number } | undefined;
      if (pending) {
        settle.run(o.success ? 1 : 0, o.message, pending.id);
        return pending.id;
      }
      return Number(insert.run(reported(o)).lastInsertRowid);
    }),
    /**
     * The same, awaited (a live session's marker, from serve's event loop): read, then written
     * guarded on what was read, and read again if the attempt was settled meanwhile.
     */
    async reportAwaited(o: ReportedOutcome): Promise<number> {
      return retryWhileMoved(async () => {
        const pending = (await getAwaited(
          pendingAttempt,
          o.sessionId,
          o.service,
          o.actionType,
          instance,
        )) as { id: number } | undefined;
        if (pending) {
          const step = { stmt: settleOpen, params: [o.success ? 1 : 0, o.message, pending.id] };
          await writeAwaited(db, [{ ...step, expect: 1 }]);
          return pending.id;
        }
        return Number((await runAwaited(insert, reported(o))).lastInsertRowid);
      }, ATTEMPTS);
    },
    /** Every action at or after `from` (epoch ms), of every instance, newest first. */
    /** Awaited: the Cooldowns page polls it. */
    async since(from: number): Promise<CooldownRow[]> {
      return ((await allAwaited(since, from)) as RawCooldown[]).map(fromRaw);
    },
    /**
     * The actions at or after `from` that count toward this instance's limits, newest first:
     * its own, and every instance's on `sharedServices` (whose limits hold across the fleet).
     */
    counted(from: number, sharedServices: readonly string[] = []): CooldownRow[] {
      return (counted.all(from, instance, sharedOf(sharedServices)) as RawCooldown[]).map(fromRaw);
    },
    /** The same, awaited (a session's start: on PostgreSQL the event loop goes on). */
    async countedAwaited(
      from: number,
      sharedServices: readonly string[] = [],
    ): Promise<CooldownRow[]> {
      const rows = await allAwaited(counted, from, instance, sharedOf(sharedServices));
      return (rows as RawCooldown[]).map(fromRaw);
    },
    recordBlock(block: Omit<CooldownBlockRow, 'id'>): number {
      return Number(insertBlock.run(block).lastInsertRowid);
    },
    /** Awaited: the Cooldowns page polls it. */
    async blocksSince(from: number, limit = 100): Promise<CooldownBlockRow[]> {
      return (await allAwaited(blocksSince, from, limit)) as CooldownBlockRow[];
    },
  };
}

export type CooldownStore = ReturnType<typeof createCooldownStore>;

/** The services whose actions every instance counts, as the statements' JSON parameter. */
export const sharedOf = (services: readonly string[]) =>
  JSON.stringify(services.map((s) => s.trim().toLowerCase()));
