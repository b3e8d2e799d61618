/**
 * Relations between the memory graph's ideas, what one file left behind, and the graph's counts.
 */
import { allAwaited } from '../engine.js';
import type { Db } from '../open.js';
import { chunkedAwaited, placeholders } from './graph-row-sql.js';
import { type RelationType, type RelationRow } from './graph-rows.js';

/** `cached`: the store's statement cache (open.ts statementCache), shared by its parts. */
export function createRelationRows(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  const insertRelation = db.prepare(`INSERT OR IGNORE INTO relations (from_id, to_id,
    relation_type, created_at) VALUES (?, ?, ?, ?)`);
  return {
    /** True when the relation is new. */
    addRelation(fromId: number, toId: number, type: RelationType, at: number): boolean {
      if (fromId === toId) return false;
      return insertRelation.run(fromId, toId, type, at).changes > 0;
    },

    /** Relations with either end among these ideas (both ends read side by side). */
    async relationsOf(ideaIds: readonly number[]): Promise<RelationRow[]> {
      const ids = [...new Set(ideaIds)];
      const ends = await Promise.all(
        ['from_id', 'to_id'].map((column) =>
          chunkedAwaited(
            ids,
            async (chunk) =>
              (await allAwaited(
                db.prepare(
                  `SELECT id, from_id AS fromId, to_id AS toId, relation_type AS type,
                     created_at AS createdAt FROM relations WHERE ${column} IN (${placeholders(chunk.length)})`,
                ),
                ...chunk,
              )) as RelationRow[],
          ),
        ),
      );
      const seen = new Map<number, RelationRow>();
      for (const r of ends.flat()) seen.set(r.id, r);
      return [...seen.values()].sort((a, b) => a.id - b.id);
    },

    /** The latest relations of a kind (the Graph page's chains), newest first. */
    async recentRelations(type: RelationType, limit = 20): Promise<RelationRow[]> {
      const stmt = cached(`SELECT id, from_id AS fromId, to_id AS toId, relation_type AS type,
        created_at AS createdAt FROM relations WHERE relation_type = ?
        ORDER BY created_at DESC, id DESC LIMIT ?`);
      return (await allAwaited(stmt, type, limit)) as RelationRow[];
    },

    /** Removes everything read from a file (it is read again from the start). */
    deleteFile(sourceFile: string): { spans: number; ideas: number } {
      const ideas = cached('DELETE FROM ideas WHERE source_file = ?').run(sourceFile).changes;
      const spans = cached('DELETE FROM spans WHERE source_file = ?').run(sourceFile).changes;
      return { spans, ideas };
    },
  };
}
