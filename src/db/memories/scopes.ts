/**
 * Memory scopes and whether the operator shares each with the ops sessions. A scope without a
 * row is not shared; `ops` itself is the ops sessions' own scope and is never listed here.
 */
import type { Db } from '../open.js';
import { allAwaited, getAwaited, runAwaited } from '../engine.js';

export const OPS_SCOPE = 'ops';

export interface ScopeRow {
  name: string;
  sharedWithOps: boolean;
  updatedAt: number | null;
  /** Active memories in the scope. */
  activeMemories: number;
  conversations: number;
}

export function createScopeStore(db: Db) {
  const shared = db.prepare(
    'SELECT name FROM memory_scopes WHERE shared_with_ops = 1 ORDER BY name',
  );
  const upsert = db.prepare(`INSERT INTO memory_scopes (name, shared_with_ops, updated_at)
    VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET shared_with_ops = excluded.shared_with_ops,
    updated_at = excluded.updated_at`);
  // Every scope something lives in: conversations, memories, or an operator's setting.
  const list = db.prepare(`WITH names AS (
      SELECT scope AS name FROM conversations
      UNION SELECT scope FROM memories WHERE scope <> 'ops'
      UNION SELECT name FROM memory_scopes)
    SELECT n.name, coalesce(s.shared_with_ops, 0) AS sharedWithOps, s.updated_at AS updatedAt,
      (SELECT COUNT(*) FROM memories m WHERE m.scope = n.name AND m.active = 1) AS activeMemories,
      (SELECT COUNT(*) FROM conversations c WHERE c.scope = n.name) AS conversations
    FROM names n LEFT JOIN memory_scopes s ON s.name = n.name ORDER BY n.name`);
  const one = db.prepare('SELECT shared_with_ops AS shared FROM memory_scopes WHERE name = ?');

  return {
    /** Names of the scopes shared with the ops sessions. */
    async shared(): Promise<string[]> {
      return ((await allAwaited(shared)) as { name: string }[]).map((r) => r.name);
    },

    async isShared(name: string): Promise<boolean> {
      return ((await getAwaited(one, name)) as { shared: number } | undefined)?.shared === 1;
    },

    async setShared(name: string, sharedWithOps: boolean, at: number): Promise<void> {
      await runAwaited(upsert, name, sharedWithOps ? 1 : 0, at);
    },

    async list(): Promise<ScopeRow[]> {
      const rows = (await allAwaited(list)) as (Omit<ScopeRow, 'sharedWithOps'> & {
        sharedWithOps: number;
      })[];
      return rows.map((r) => ({ ...r, sharedWithOps: r.sharedWithOps === 1 }));
    },
  };
}

export type ScopeStore = ReturnType<typeof createScopeStore>;
