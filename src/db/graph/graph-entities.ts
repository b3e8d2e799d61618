/**
 * The memory graph's entities, the spellings that name them, and the ideas that name them.
 */
import { allAwaited, getAwaited } from '../engine.js';
import type { Db } from '../open.js';
import { chunked, chunkedAwaited, placeholders } from './graph-row-sql.js';
import { type EntityType, type EntityRow } from './graph-rows.js';

type Named = EntityRow & { ideaId: number };

function byIdea(rows: readonly Named[]): Map<number, EntityRow[]> {
  const out = new Map<number, EntityRow[]>();
  for (const r of rows) {
    const list = out.get(r.ideaId) ?? [];
    list.push({ id: r.id, name: r.name, type: r.type });
    out.set(r.ideaId, list);
  }
  return out;
}

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
  const namedBy = (n: number) =>
    `SELECT l.idea_id AS ideaId, e.id, e.name, e.type FROM idea_entities l
     JOIN entities e ON e.id = l.entity_id WHERE l.idea_id IN (${placeholders(n)})
     ORDER BY e.type, e.name`;
  return {
    /** The entity with this name and type, created if new; `alias` is the spelling seen. */
    entityId(name: string, type: EntityType, alias: string): number {
      insertEntity.run(name, type);
      const row = entityByName.get(name, type) as EntityRow;
      insertAlias.run(alias, row.id);
      if (alias.toLowerCase() !== name.toLowerCase()) insertAlias.run(name, row.id);
      return row.id;
    },

    async entity(id: number): Promise<EntityRow | null> {
      const stmt = cached('SELECT id, name, type FROM entities WHERE id = ?');
      return ((await getAwaited(stmt, id)) as EntityRow | undefined) ?? null;
    },

    /** Entities named or spelled like any of these (case folded), in one statement. */
    async entitiesNamed(spellings: readonly string[]): Promise<EntityRow[]> {
      // Placeholders, not a JSON list: each spelling compares as the column does (NOCASE on
      // SQLite, citext on PostgreSQL).
      const rows = await chunkedAwaited(
        [...new Set(spellings)],
        async (chunk) =>
          (await allAwaited(
            db.prepare(`SELECT DISTINCT e.id, e.name, e.type FROM entities e
              LEFT JOIN entity_aliases a ON a.entity_id = e.id
              WHERE e.name IN (${placeholders(chunk.length)})
                OR a.alias IN (${placeholders(chunk.length)})`),
            ...chunk,
            ...chunk,
          )) as EntityRow[],
      );
      const byId = new Map(rows.map((e) => [Number(e.id), e]));
      return [...byId.values()].sort((a, b) => a.id - b.id);
    },

    async aliasesOf(entityId: number): Promise<string[]> {
      const stmt = cached('SELECT alias FROM entity_aliases WHERE entity_id = ? ORDER BY alias');
      return ((await allAwaited(stmt, entityId)) as { alias: string }[]).map((r) => r.alias);
    },

    linkEntities(ideaId: number, entityIds: readonly number[]): void {
      for (const id of entityIds) link.run(ideaId, id);
    },

    /**
     * The entities each idea names, read at once: indexing compares a new idea with those its
     * own transaction has just written (candidates.ts). Everything else reads `entitiesOfAwaited`.
     */
    entitiesOf(ideaIds: readonly number[]): Map<number, EntityRow[]> {
      return byIdea(
        chunked(ideaIds, (chunk) => cached(namedBy(chunk.length)).all(...chunk) as Named[]),
      );
    },

    /** The same, awaited (committed rows only). */
    async entitiesOfAwaited(ideaIds: readonly number[]): Promise<Map<number, EntityRow[]>> {
      return byIdea(
        await chunkedAwaited(
          ideaIds,
          async (chunk) => (await allAwaited(cached(namedBy(chunk.length)), ...chunk)) as Named[],
        ),
      );
    },
  };
}
