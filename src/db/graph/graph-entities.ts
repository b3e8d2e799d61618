/**
 * The memory graph's entities, the spellings that name them, and the ideas that name them.
 */
import type { Db } from '../open.js';
import { placeholders, chunked } from './graph-row-sql.js';
import { type EntityType, type EntityRow } from './graph-rows.js';

/** `cached`: the store's statement cache (open.ts statementCache), shared by its parts. */
export function createEntityRows(db: Db, cached: (sql: string) => ReturnType<Db['prepare']>) {
  const insertEntity = db.prepare('INSERT OR IGNORE INTO entities (name, type) VALUES (?, ?)');
  const entityByName = db.prepare(
    'SELECT id, name, type FROM entities WHERE name = ? AND type = ?',
  );
  const insertAlias = db.prepare(
    'INSERT OR IGNORE INTO entity_aliases (alias, entity_id) VALUES (?, ?)',
  );
  const link = db.prepare('INSERT OR IGNORE INTO idea_entities (idea_id, entity_id) VALUES (?, ?)');
  return {
    /** The entity with this name and type, created if new; `alias` is the spelling seen. */
    entityId(name: string, type: EntityType, alias: string): number {
      insertEntity.run(name, type);
      const row = entityByName.get(name, type) as EntityRow;
      insertAlias.run(alias, row.id);
      if (alias.toLowerCase() !== name.toLowerCase()) insertAlias.run(name, row.id);
      return row.id;
    },

    entity(id: number): EntityRow | null {
      return (
        (cached('SELECT id, name, type FROM entities WHERE id = ?').get(id) as
          EntityRow | undefined) ?? null
      );
    },

    /** Entities named or spelled like this (case folded). */
    entitiesNamed(spelling: string): EntityRow[] {
      return cached(`SELECT DISTINCT e.id, e.name, e.type FROM entities e
        LEFT JOIN entity_aliases a ON a.entity_id = e.id
        WHERE e.name = ? OR a.alias = ? ORDER BY e.id`).all(spelling, spelling) as EntityRow[];
    },

    aliasesOf(entityId: number): string[] {
      return (
        cached('SELECT alias FROM entity_aliases WHERE entity_id = ? ORDER BY alias').all(
          entityId,
        ) as { alias: string }[]
      ).map((r) => r.alias);
    },

    linkEntities(ideaId: number, entityIds: readonly number[]): void {
      for (const id of entityIds) link.run(ideaId, id);
    },

    entitiesOf(ideaIds: readonly number[]): Map<number, EntityRow[]> {
      const out = new Map<number, EntityRow[]>();
      const rows = chunked(
        ideaIds,
        (chunk) =>
          cached(
            `SELECT l.idea_id AS ideaId, e.id, e.name, e.type FROM idea_entities l
             JOIN entities e ON e.id = l.entity_id WHERE l.idea_id IN (${placeholders(chunk.length)})
             ORDER BY e.type, e.name`,
          ).all(...chunk) as (EntityRow & { ideaId: number })[],
      );
      for (const r of rows) {
        const list = out.get(r.ideaId) ?? [];
        list.push({ id: r.id, name: r.name, type: r.type });
        out.set(r.ideaId, list);
      }
      return out;
    },
  };
}
