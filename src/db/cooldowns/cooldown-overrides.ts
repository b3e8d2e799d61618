/**
 * cooldown_overrides: what an operator did to a service's cooldown, with who and why. A reset
 * stops the actions recorded before it from counting (they stay in the table and the history);
 * an allowance lets N more actions through until a time.
 */
import type { CooldownAction } from '../../stream/markers.js';
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
}

export type NewCooldownOverride = Omit<CooldownOverrideRow, 'id'>;

const COLUMNS = `id, service, action_type AS actionType, kind, extra, until_at AS untilAt, actor,
  reason, created_at AS createdAt`;

export function createCooldownOverrideStore(db: Db) {
  const insert = db.prepare(`INSERT INTO cooldown_overrides
    (service, action_type, kind, extra, until_at, actor, reason, created_at)
    VALUES (@service, @actionType, @kind, @extra, @untilAt, @actor, @reason, @createdAt)`);
  // Resets since the widest window began (older ones excluded only actions no window reaches),
  // and allowances still running.
  const effective = db.prepare(`SELECT ${COLUMNS} FROM cooldown_overrides
    WHERE created_at <= @now AND ((kind = 'reset' AND created_at >= @horizon)
      OR (kind = 'allow' AND until_at > @now))
    ORDER BY created_at, id`);
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM cooldown_overrides WHERE id = ?`);
  const recent = db.prepare(`SELECT ${COLUMNS} FROM cooldown_overrides
    ORDER BY created_at DESC, id DESC LIMIT ?`);

  return {
    insert(o: NewCooldownOverride): number {
      return Number(insert.run(o).lastInsertRowid);
    },
    /** The overrides that change the state at `now`; `horizon` is the widest window's start. */
    effective(now: number, horizon: number): CooldownOverrideRow[] {
      return effective.all({ now, horizon }) as CooldownOverrideRow[];
    },
    get(id: number): CooldownOverrideRow | null {
      return (getOne.get(id) as CooldownOverrideRow | undefined) ?? null;
    },
    /** The history, newest first. */
    recent(limit = 100): CooldownOverrideRow[] {
      return recent.all(limit) as CooldownOverrideRow[];
    },
  };
}

export type CooldownOverrideStore = ReturnType<typeof createCooldownOverrideStore>;
