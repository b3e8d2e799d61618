/**
 * cooldown_overrides: what an operator did to a service's cooldown, with who and why. A reset
 * stops the actions recorded before it from counting (they stay in the table and the history);
 * an allowance lets N more actions through until a time. An override applies to the instance it
 * was made on, unless it was declared fleet-wide; on a service whose limits the fleet shares
 * (config.fleet.cooldownServices) every override applies to every instance, as the actions do.
 */
import type { CooldownAction } from '../../stream/markers.js';
import { allAwaited, getAwaited, runAwaited } from '../engine.js';
import { sharedOf } from './cooldowns.js';
import type { Db } from '../open.js';

export type CooldownOverrideKind = 'reset' | 'allow';

export interface CooldownOverrideRow {
  id: number;
  service: string;
  /** null: both restarts and redeployments. */
  actionType: CooldownAction | null;
  kind: CooldownOverrideKind;
  /** allow: how many more actions. */
  extra: number | null;
  /** allow: until when. */
  untilAt: number | null;
  actor: string;
  reason: string;
  createdAt: number;
  /** The instance it applies to; null: every instance (fleet-wide). */
  instance: string | null;
}

/** An override to record: the store stamps its own instance unless it is fleet-wide. */
export type NewCooldownOverride = Omit<CooldownOverrideRow, 'id' | 'instance'> & {
  fleetWide: boolean;
};

const COLUMNS = `id, service, action_type AS actionType, kind, extra, until_at AS untilAt, actor,
  reason, created_at AS createdAt, instance`;

/** `instance`: this sidecar's name, stamped on the overrides made here that are not fleet-wide. */
export function createCooldownOverrideStore(db: Db, instance = 'local') {
  const insert = db.prepare(`INSERT INTO cooldown_overrides
    (service, action_type, kind, extra, until_at, actor, reason, created_at, instance)
    VALUES (@service, @actionType, @kind, @extra, @untilAt, @actor, @reason, @createdAt,
    @instance)`);
  // Resets since the widest window began (older ones excluded only actions no window reaches),
  // and allowances still running; this instance's, the fleet-wide ones, and every instance's on
  // the shared services.
  const effective = db.prepare(`SELECT ${COLUMNS} FROM cooldown_overrides
    WHERE created_at <= @now AND ((kind = 'reset' AND created_at >= @horizon)
      OR (kind = 'allow' AND until_at > @now))
      AND (instance IS NULL OR instance = @instance
        OR service IN (SELECT value FROM json_each(@shared)))
    ORDER BY created_at, id`);
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM cooldown_overrides WHERE id = ?`);
  const recent = db.prepare(`SELECT ${COLUMNS} FROM cooldown_overrides
    ORDER BY created_at DESC, id DESC LIMIT ?`);

  return {
    async insert({ fleetWide, ...o }: NewCooldownOverride): Promise<number> {
      const r = await runAwaited(insert, { ...o, instance: fleetWide ? null : instance });
      return Number(r.lastInsertRowid);
    },
    /**
     * The overrides that change this instance's state at `now`; `horizon` is the widest
     * window's start, `sharedServices` the services whose limits the fleet shares.
     */
    effective(
      now: number,
      horizon: number,
      sharedServices: readonly string[] = [],
    ): CooldownOverrideRow[] {
      const shared = sharedOf(sharedServices);
      return effective.all({ now, horizon, instance, shared }) as CooldownOverrideRow[];
    },
    /** The same, awaited (a session's start). */
    async effectiveAwaited(
      now: number,
      horizon: number,
      sharedServices: readonly string[] = [],
    ): Promise<CooldownOverrideRow[]> {
      const shared = sharedOf(sharedServices);
      return (await allAwaited(effective, {
        now,
        horizon,
        instance,
        shared,
      })) as CooldownOverrideRow[];
    },
    async get(id: number): Promise<CooldownOverrideRow | null> {
      return ((await getAwaited(getOne, id)) as CooldownOverrideRow | undefined) ?? null;
    },
    /** The history of every instance, newest first. */
    async recent(limit = 100): Promise<CooldownOverrideRow[]> {
      return (await allAwaited(recent, limit)) as CooldownOverrideRow[];
    },
  };
}

export type CooldownOverrideStore = ReturnType<typeof createCooldownOverrideStore>;
