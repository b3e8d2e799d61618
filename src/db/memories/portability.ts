/**
 * The SQL of memory portability (migration 0015): memories with their history read in pages of
 * ids for export, memories written back with every field an export carries, the record of what
 * was imported, merged memories' link to their survivor, and the MCP memory server's entities
 * linked to memories and to each other.
 */
import type {
  HistoryAction,
  HistoryRow,
  MemoryFilter,
  MemoryRow,
  MemorySource,
} from './memories.js';
import { allAwaited, getAwaited } from '../engine.js';
import { type Db, statementCache } from '../open.js';

export type ImportOrigin = 'watchkeeper' | 'mcp-memory';
export type ImportRecordKind = 'memory' | 'service' | 'entity' | 'observation' | 'relation';

/** A memory as exported: the row, where it was merged into, and its whole history. */
export interface PortableMemory {
  memory: MemoryRow & { mergedInto: number | null };
  history: HistoryRow[];
}

/** A memory to write back as it was exported (ids of other memories already mapped). */
export type ImportedMemory = Omit<MemoryRow, 'id' | 'sessionId' | 'supersededBy'> & {
  nextDecayAt: number;
  history: ImportedHistory[];
};

export interface ImportedHistory {
  action: HistoryAction;
  oldConfidence: number | null;
  newConfidence: number | null;
  observation: string | null;
  createdAt: number;
  source: MemorySource | null;
  evidence: string | null;
}

/** A memory an imported record may be, with the history rows that hold its own words. */
export type CreatedMemory = PortableMemory['memory'] & {
  history: { action: string; observation: string | null }[];
};

export interface EntityRelationRow {
  id: number;
  fromId: number;
  toId: number;
  type: string;
  createdAt: number;
}

const MEMORY_COLUMNS = `id, service, category, observation, confidence,
  base_confidence AS baseConfidence, active, pinned, created_at AS createdAt,
  updated_at AS updatedAt, last_reinforced_at AS lastReinforcedAt, session_id AS sessionId, tier,
  superseded_by AS supersededBy, last_surfaced_at AS lastSurfacedAt, surface_count AS surfaceCount,
  importance, importance_boost AS importanceBoost, source, source_ref AS sourceRef, scope,
  archived_at AS archivedAt, archive_reason AS archiveReason, access_count AS accessCount,
  last_accessed_at AS lastAccessedAt, merged_into AS mergedInto, instance`;

type RawPortable = Omit<PortableMemory['memory'], 'active' | 'pinned'> & {
  active: number;
  pinned: number;
};

/** The export's filter: the Memories page's filters, scopes included. */
function whereOf(filter: MemoryFilter): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (filter.service === null) where.push('service IS NULL');
  else if (filter.service !== undefined) {
    where.push('service = ?');
    params.push(filter.service);
  }
  if (filter.category) {
    where.push('category = ?');
    params.push(filter.category);
  }
  const status = filter.status ?? 'active';
  if (status !== 'all') where.push(status === 'active' ? 'active = 1' : 'active = 0');
  if (filter.pinned !== undefined) where.push(filter.pinned ? 'pinned = 1' : 'pinned = 0');
  if (filter.importance) {
    where.push('importance = ?');
    params.push(filter.importance);
  }
  if (filter.archived !== undefined)
    where.push(filter.archived ? 'archived_at IS NOT NULL' : 'archived_at IS NULL');
  if (filter.scopes !== undefined) {
    where.push('scope IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filter.scopes));
  }
  if (filter.instance !== undefined) {
    where.push('instance = ?');
    params.push(filter.instance);
  }
  return { sql: where.length ? `AND ${where.join(' AND ')}` : '', params };
}

export function createPortabilityStore(db: Db) {
  const cached = statementCache(db);
  const historyOf = db.prepare(`SELECT id, memory_id AS memoryId, action,
    old_confidence AS oldConfidence, new_confidence AS newConfidence, observation,
    session_id AS sessionId, created_at AS createdAt, related_memory_id AS relatedMemoryId, source,
    evidence FROM memory_history WHERE memory_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))
    ORDER BY memory_id, created_at, id`);
  const insertMemory = db.prepare(`INSERT INTO memories (service, category, observation,
    confidence, base_confidence, active, pinned, created_at, updated_at, last_reinforced_at,
    session_id, tier, next_decay_at, last_surfaced_at, surface_count, importance, importance_boost,
    source, source_ref, scope, archived_at, archive_reason, access_count, last_accessed_at,
    instance)
    VALUES (@service, @category, @observation, @confidence, @baseConfidence, @active, @pinned,
    @createdAt, @updatedAt, @lastReinforcedAt, NULL, @tier, @nextDecayAt, @lastSurfacedAt,
    @surfaceCount, @importance, @importanceBoost, @source, @sourceRef, @scope, @archivedAt,
    @archiveReason, @accessCount, @lastAccessedAt, @instance)`);
  const insertHistory = db.prepare(`INSERT INTO memory_history (memory_id, action, old_confidence,
    new_confidence, observation, session_id, created_at, related_memory_id, source, evidence)
    VALUES (?, ?, ?, ?, ?, NULL, ?, NULL, ?, ?)`);
  const sameCreations = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories
    WHERE created_at IN (SELECT CAST(value AS BIGINT) FROM json_each(?)) ORDER BY id`);
  const importedMany = db.prepare(`SELECT key, target_id AS targetId FROM memory_imports
    WHERE origin = ? AND key IN (SELECT value FROM json_each(?))`);
  const imported = db.prepare(
    'SELECT target_id AS targetId FROM memory_imports WHERE origin = ? AND key = ?',
  );
  const recordImport = db.prepare(`INSERT OR IGNORE INTO memory_imports (origin, key, kind,
    target_id, imported_at) VALUES (?, ?, ?, ?, ?)`);
  const insertRelation = db.prepare(`INSERT OR IGNORE INTO entity_relations (from_id, to_id,
    relation_type, created_at) VALUES (?, ?, ?, ?)`);

  return {
    /** Every read of the export is awaited: serve answers it (on PostgreSQL the loop goes on). */
    async count(filter: MemoryFilter): Promise<number> {
      const { sql, params } = whereOf(filter);
      const stmt = cached(`SELECT COUNT(*) AS n FROM memories WHERE 1 = 1 ${sql}`);
      return ((await getAwaited(stmt, ...params)) as { n: number }).n;
    },

    /**
     * The memories of a filter with their history, in pages of ids. Each page is read to the end
     * before it is handed out, so a consumer that waits between pages (a web response) never
     * holds the connection busy while others write.
     */
    async *pages(filter: MemoryFilter, pageSize = 500): AsyncGenerator<PortableMemory[]> {
      const { sql, params } = whereOf(filter);
      const page = cached(
        `SELECT ${MEMORY_COLUMNS} FROM memories WHERE id > ? ${sql} ORDER BY id LIMIT ?`,
      );
      let after = 0;
      for (;;) {
        const rows: PortableMemory[] = [];
        const byId = new Map<number, PortableMemory>();
        const raws = (await allAwaited(page, after, ...params, pageSize)) as RawPortable[];
        for (const raw of raws) {
          const item = {
            memory: { ...raw, active: raw.active === 1, pinned: raw.pinned === 1 },
            history: [],
          };
          rows.push(item);
          byId.set(raw.id, item);
        }
        if (rows.length === 0) return;
        const history = await allAwaited(historyOf, JSON.stringify([...byId.keys()]));
        for (const h of history as HistoryRow[]) byId.get(h.memoryId)!.history.push(h);
        after = rows[rows.length - 1]!.memory.id;
        yield rows;
        if (rows.length < pageSize) return;
      }
    },

    /** Services with a description, by name (all of them when `names` is not given). */
    async describedServices(
      names?: readonly string[],
    ): Promise<{ name: string; description: string; descriptionSource: string | null }[]> {
      const stmt = cached(`SELECT name, description, description_source AS descriptionSource
        FROM services WHERE description IS NOT NULL AND description <> '' ORDER BY name`);
      const all = (await allAwaited(stmt)) as {
        name: string;
        description: string;
        descriptionSource: string | null;
      }[];
      return names === undefined ? all : all.filter((s) => names.includes(s.name));
    },

    maxMemoryId(): number {
      return (cached('SELECT COALESCE(MAX(id), 0) AS n FROM memories').get() as { n: number }).n;
    },

    /**
     * The memories made at these times (whatever their state), each with the words its history
     * kept as its own: the rows imported records may be, as they were or before an edit here.
     * One round trip for the rows and one for their history, whatever the batch.
     */
    sameCreations(createdAts: readonly number[]): CreatedMemory[] {
      if (createdAts.length === 0) return [];
      const rows = (
        sameCreations.all(JSON.stringify([...new Set(createdAts)])) as RawPortable[]
      ).map((raw) => ({
        ...raw,
        active: raw.active === 1,
        pinned: raw.pinned === 1,
        history: [] as CreatedMemory['history'],
      }));
      if (rows.length === 0) return rows;
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const h of historyOf.iterate(JSON.stringify([...byId.keys()])) as Iterable<HistoryRow>)
        byId.get(h.memoryId)!.history.push({ action: h.action, observation: h.observation });
      return rows;
    },

    /** What earlier imports made of these records: each key's row id (null: none), if any. */
    importedMany(origin: ImportOrigin, keys: readonly string[]): Map<string, number | null> {
      const found = new Map<string, number | null>();
      if (keys.length === 0) return found;
      for (const r of importedMany.all(origin, JSON.stringify(keys)) as {
        key: string;
        targetId: number | null;
      }[])
        found.set(r.key, r.targetId);
      return found;
    },

    /** What an earlier import made of this record: the row's id (null: none), or undefined. */
    importedAs(origin: ImportOrigin, key: string): number | null | undefined {
      const row = imported.get(origin, key) as { targetId: number | null } | undefined;
      return row === undefined ? undefined : row.targetId;
    },

    recordImport(
      origin: ImportOrigin,
      key: string,
      kind: ImportRecordKind,
      targetId: number | null,
      at: number,
    ): void {
      recordImport.run(origin, key, kind, targetId, at);
    },

    /** Writes a memory with every exported field and its history; returns the new id. */
    insertMemory(m: ImportedMemory): { id: number; historyIds: number[] } {
      const id = Number(
        insertMemory.run({
          ...m,
          active: m.active ? 1 : 0,
          pinned: m.pinned ? 1 : 0,
        }).lastInsertRowid,
      );
      const historyIds = m.history.map((h) =>
        Number(
          insertHistory.run(
            id,
            h.action,
            h.oldConfidence,
            h.newConfidence,
            h.observation,
            h.createdAt,
            h.source,
            h.evidence,
          ).lastInsertRowid,
        ),
      );
      return { id, historyIds };
    },

    /** Links an imported memory to other memories once their ids here are known. */
    setLinks(id: number, links: { supersededBy?: number | null; mergedInto?: number | null }) {
      if (links.supersededBy !== undefined)
        cached('UPDATE memories SET superseded_by = ? WHERE id = ?').run(links.supersededBy, id);
      if (links.mergedInto !== undefined)
        cached('UPDATE memories SET merged_into = ? WHERE id = ?').run(links.mergedInto, id);
    },

    setHistoryRelated(historyId: number, relatedMemoryId: number | null): void {
      cached('UPDATE memory_history SET related_memory_id = ? WHERE id = ?').run(
        relatedMemoryId,
        historyId,
      );
    },

    /** The memory this one was merged into, if any. */
    mergedInto(id: number): number | null {
      const row = cached('SELECT merged_into AS m FROM memories WHERE id = ?').get(id) as
        { m: number | null } | undefined;
      return row?.m ?? null;
    },

    /** The memories merged into this one. */
    mergedFrom(id: number): number[] {
      return (
        cached('SELECT id FROM memories WHERE merged_into = ? ORDER BY id').all(id) as {
          id: number;
        }[]
      ).map((r) => r.id);
    },

    linkEntity(memoryId: number, entityId: number): void {
      cached('INSERT OR IGNORE INTO memory_entities (memory_id, entity_id) VALUES (?, ?)').run(
        memoryId,
        entityId,
      );
    },

    /** Memories linked to an entity. */
    memoriesOfEntity(entityId: number): number[] {
      return (
        cached(
          'SELECT memory_id AS id FROM memory_entities WHERE entity_id = ? ORDER BY memory_id',
        ).all(entityId) as { id: number }[]
      ).map((r) => r.id);
    },

    /** True when the relation is new. */
    addEntityRelation(fromId: number, toId: number, type: string, at: number): boolean {
      return insertRelation.run(fromId, toId, type, at).changes > 0;
    },

    hasEntityRelation(fromId: number, toId: number, type: string): boolean {
      return (
        cached(
          'SELECT 1 FROM entity_relations WHERE from_id = ? AND to_id = ? AND relation_type = ?',
        ).get(fromId, toId, type) !== undefined
      );
    },

    entityRelations(): EntityRelationRow[] {
      return cached(`SELECT id, from_id AS fromId, to_id AS toId, relation_type AS type,
        created_at AS createdAt FROM entity_relations ORDER BY id`).all() as EntityRelationRow[];
    },

    /** Runs `fn` in one transaction. */
    transaction<T>(fn: () => T): T {
      return db.transaction(fn)();
    },
  };
}

export type PortabilityStore = ReturnType<typeof createPortabilityStore>;
