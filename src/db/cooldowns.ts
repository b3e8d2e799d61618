/** The cooldown_actions table: restarts and redeployments the agent reported, per service. */
import type { CooldownAction } from '../stream/markers.js';
import type { Db } from './open.js';

export interface CooldownRow {
  id: number;
  service: string;
  actionType: CooldownAction;
  success: boolean;
  message: string | null;
  tier: number | null;
  sessionId: number | null;
  createdAt: number;
}

export type NewCooldownAction = Omit<CooldownRow, 'id'>;

const COLUMNS = `id, service, action_type AS actionType, success, message, tier,
  session_id AS sessionId, created_at AS createdAt`;

export function createCooldownStore(db: Db) {
  const insert = db.prepare(`INSERT INTO cooldown_actions
    (service, action_type, success, message, tier, session_id, created_at)
    VALUES (@service, @actionType, @success, @message, @tier, @sessionId, @createdAt)`);
  const since = db.prepare(`SELECT ${COLUMNS} FROM cooldown_actions WHERE created_at >= ?
    ORDER BY created_at DESC, id DESC`);

  return {
    insert(action: NewCooldownAction): number {
      return Number(insert.run({ ...action, success: action.success ? 1 : 0 }).lastInsertRowid);
    },
    /** Every action at or after `from` (epoch ms), newest first. */
    since(from: number): CooldownRow[] {
      return (since.all(from) as (Omit<CooldownRow, 'success'> & { success: number })[]).map(
        (r) => ({
          ...r,
          success: r.success === 1,
        }),
      );
    },
  };
}

export type CooldownStore = ReturnType<typeof createCooldownStore>;
