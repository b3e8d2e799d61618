/**
 * The memories table and its history. Each mutating method writes the memory row and its
 * memory_history entry in one transaction; the values themselves (confidence after a
 * reinforcement or decay) are computed by the caller with the pure functions of src/memory.
 */
import type { Category } from '../memory/policy.js';
import type { ContextMemory } from '../memory/context.js';
import { type Db, statementCache } from './open.js';

export interface MemoryRow {
  id: number;
  service: string | null;
  category: Category;
  observation: string;
  confidence: number;
  baseConfidence: number;
  active: boolean;
  pinned: boolean;
  createdAt: number;
  updatedAt: number;
  lastReinforcedAt: number;
  sessionId: number | null;
  tier: number;
  /** The memory that replaced this one (a contradicting observation), if any. */
  supersededBy: number | null;
  lastSurfacedAt: number | null;
  surfaceCount: number;
  importance: Importance;
  /** Added to the importance level by memory_reinforce calls (0.1 each); see importanceValue. */
  importanceBoost: number;
  source: MemorySource;
  /** Which marker, tool call, conversation range or file it came from. */
  sourceRef: string | null;
  /** 'ops' (the scheduled sessions' memory) or a conversation scope. */
  scope: string;
  archivedAt: number | null;
  archiveReason: string | null;
  accessCount: number;
  lastAccessedAt: number | null;
  /** The instance that learned it, or FLEET when shared with every instance. */
  instance: string;
}

/** The instance name of a memory shared with the whole fleet. */
export const FLEET = 'fleet';

export const IMPORTANCES = ['low', 'normal', 'high', 'core'] as const;
export type Importance = (typeof IMPORTANCES)[number];
export const MEMORY_SOURCES = ['marker', 'tool', 'operator', 'conversation', 'import'] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

export const HISTORY_ACTIONS = [
  'created',
  'reinforced',
  'decayed',
  'deactivated',
  'edited',
  'reactivated',
  'pinned',
  'unpinned',
  'deleted',
  'superseded',
  'archived',
  'restored',
  'merged',
  'imported',
] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

export interface HistoryRow {
  id: number;
  memoryId: number;
  action: HistoryAction;
  oldConfidence: number | null;
  newConfidence: number | null;
  observation: string | null;
  sessionId: number | null;
  createdAt: number;
  /** The other memory of the change: the successor of a superseded memory. */
  relatedMemoryId: number | null;
  /** What made the change (marker, tool, operator, conversation, import), when recorded. */
  source: MemorySource | null;
  /** Evidence given with the change (a memory tool's new_evidence). */
  evidence: string | null;
}

export interface NewMemory {
  service: string | null;
  category: Category;
  observation: string;
  confidence: number;
  sessionId: number | null;
  tier: number;
  pinned?: boolean;
  at: number;
  /** When the first decay step falls due (see memory/decay nextDecayAt). */
  nextDecayAt: number;
  importance?: Importance;
  /** Defaults to operator for tier 0, marker otherwise. */
  source?: MemorySource;
  sourceRef?: string | null;
  scope?: string;
  evidence?: string | null;
  /** The instance that learned it, or FLEET; `local` when omitted. */
  instance?: string;
}

export interface MemoryFilter {
  /** `null` selects general memories (no service). */
  service?: string | null;
  category?: Category;
  status?: 'active' | 'inactive' | 'all';
  pinned?: boolean;
  importance?: Importance;
  /** true: archived by someone (archived_at set); false: not archived. */
  archived?: boolean;
  /** Only memories of these scopes (the ops block: 'ops' and the scopes shared with it). */
  scopes?: readonly string[];
  /** Only the memories of this instance (or, with FLEET, the shared ones). */
  instance?: string;
  /** Only what this instance sees: its own memories and the fleet's. */
  visibleTo?: string;
  limit?: number;
  offset?: number;
}

/** A change computed by the caller; `confidence`/`active` are the new values. */
export interface MemoryChange {
  id: number;
  action: HistoryAction;
  confidence: number;
  /**
   * The new confidence from the row as the change's transaction reads it (a reinforcement), so
   * that two instances reinforcing at once both count; overrides `confidence`.
   */
  confidenceOf?: (current: MemoryRow) => number;
  active: boolean;
  /** Set when the change restarts the decay clock (reinforce, edit, reactivate). */
  resetBase?: boolean;
  observation?: string;
  /** Wording recorded in the history (for a reinforcement, the new wording). */
  historyObservation?: string | null;
  pinned?: boolean;
  sessionId?: number | null;
  at: number;
  /** When the next decay step falls due; unchanged when omitted. */
  nextDecayAt?: number;
  /** Recorded in the history; with action `superseded`, also the memory's successor. */
  relatedMemoryId?: number;
  source?: MemorySource;
  evidence?: string | null;
  importance?: Importance;
  importanceBoost?: number;
  /** Sets (or, with null, clears) the archive date and reason; any change to active clears them. */
  archive?: { reason: string } | null;
  /** The survivor this memory was merged into (action `merged`). */
  mergedInto?: number;
}

const COLUMNS = `id, service, category, observation, confidence, base_confidence AS baseConfidence,
  active, pinned, created_at AS createdAt, updated_at AS updatedAt,
  last_reinforced_at AS lastReinforcedAt, session_id AS sessionId, tier,
  superseded_by AS supersededBy, last_surfaced_at AS lastSurfacedAt, surface_count AS surfaceCount,
  importance, importance_boost AS importanceBoost, source, source_ref AS sourceRef, scope,
  archived_at AS archivedAt, archive_reason AS archiveReason, access_count AS accessCount,
  last_accessed_at AS lastAccessedAt, instance`;

/** COLUMNS qualified with the alias `m` (json_each has an `id` column of its own). */
const COLUMNS_OF_M = COLUMNS.replace(/(^|,\s*)(\w+)/g, '$1m.$2');

type RawMemory = Omit<MemoryRow, 'active' | 'pinned'> & { active: number; pinned: number };

function fromRaw(raw: RawMemory): MemoryRow {
  return { ...raw, active: raw.active === 1, pinned: raw.pinned === 1 };
}

function whereOf(filter: MemoryFilter): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (clause: string, value: string | number) => {
    where.push(clause);
    params.push(value);
  };
  if (filter.service === null) where.push('service IS NULL');
  else if (filter.service !== undefined) add('service = ?', filter.service);
  if (filter.category) add('category = ?', filter.category);
  const status = filter.status ?? 'active';
  if (status !== 'all') where.push(status === 'active' ? 'active = 1' : 'active = 0');
  // A literal, so that the partial index of pinned memories can serve it.
  if (filter.pinned !== undefined) where.push(filter.pinned ? 'pinned = 1' : 'pinned = 0');
  if (filter.importance) add('importance = ?', filter.importance);
  if (filter.archived !== undefined)
    where.push(filter.archived ? 'archived_at IS NOT NULL' : 'archived_at IS NULL');
  // One statement text whatever the number of scopes: the list goes in as a JSON array.
  // `+scope`: a row filter, never the index to read by (the scope index would make SQLite sort
  // all 100,000 rows instead of reading the list order from its index: 4 ms -> 60 ms).
  if (filter.scopes !== undefined)
    add('+scope IN (SELECT value FROM json_each(?))', JSON.stringify(filter.scopes));
  // Row filters like the scope (`+`): the order of the list comes from its own index (reading by
  // the instance index would sort every row of a large instance: 1 ms -> 50 ms at 100,000).
  if (filter.instance !== undefined) add('+instance = ?', filter.instance);
  if (filter.visibleTo !== undefined) add(`+instance IN (?, '${FLEET}')`, filter.visibleTo);
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

/**
 * Whether any memory belongs to an instance other than `instance` and the fleet: three range
 * probes of the instance index. When none does (a lone sidecar), what the instance sees is every
 * memory, and the visibility filter can be left out of the SQL.
 */
export function otherInstancesProbe(db: Db): (instance: string) => boolean {
  const probe = db.prepare(`SELECT EXISTS (SELECT 1 FROM memories WHERE instance < ?)
    OR EXISTS (SELECT 1 FROM memories WHERE instance > ? AND instance < ?)
    OR EXISTS (SELECT 1 FROM memories WHERE instance > ?) AS n`);
  return (instance) => {
    const [low, high] = instance < FLEET ? [instance, FLEET] : [FLEET, instance];
    return Boolean((probe.get(low, low, high, high) as { n: number | boolean }).n);
  };
}

/** The filter without `visibleTo` when the instance sees every memory anyway. */
export function withVisibility<F extends { visibleTo?: string }>(
  filter: F,
  hasOthers: (instance: string) => boolean,
): F {
  if (filter.visibleTo === undefined || hasOthers(filter.visibleTo)) return filter;
  const rest = { ...filter };
  delete rest.visibleTo;
  return rest;
}

export function createMemoryStore(db: Db) {
  const cached = statementCache(db);
  const hasOthers = otherInstancesProbe(db);
  const insertMemory = db.prepare(`INSERT INTO memories (service, category, observation, confidence,
    base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier,
    next_decay_at, importance, source, source_ref, scope, instance)
    VALUES (@service, @category, @observation, @confidence, @confidence, 1, @pinned, @at, @at, @at,
    @sessionId, @tier, @nextDecayAt, @importance, @source, @sourceRef, @scope, @instance)`);
  const insertHistory = db.prepare(`INSERT INTO memory_history
    (memory_id, action, old_confidence, new_confidence, observation, session_id, created_at,
    related_memory_id, source, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM memories WHERE id = ?`);
  // Any number of ids as one JSON parameter: one prepared statement.
  const getManyStmt = db.prepare(
    `SELECT ${COLUMNS_OF_M} FROM json_each(?) j CROSS JOIN memories m ON m.id = CAST(j.value AS BIGINT)`,
  );
  const update = db.prepare(`UPDATE memories SET confidence = @confidence, active = @active,
    observation = COALESCE(@observation, observation), pinned = COALESCE(@pinned, pinned),
    base_confidence = CASE WHEN @resetBase THEN @confidence ELSE base_confidence END,
    last_reinforced_at = CASE WHEN @resetBase THEN @at ELSE last_reinforced_at END,
    next_decay_at = COALESCE(@nextDecayAt, next_decay_at),
    superseded_by = CASE WHEN @superseded THEN @related ELSE superseded_by END,
    importance = COALESCE(@importance, importance),
    importance_boost = COALESCE(@importanceBoost, importance_boost),
    archived_at = CASE WHEN @active = 1 OR @archive = 2 THEN NULL
      WHEN @archive = 1 THEN @at ELSE archived_at END,
    archive_reason = CASE WHEN @active = 1 OR @archive = 2 THEN NULL
      WHEN @archive = 1 THEN @archiveReason ELSE archive_reason END,
    merged_into = COALESCE(@mergedInto, merged_into),
    updated_at = @at WHERE id = @id`);
  const touch = db.prepare(`UPDATE memories SET access_count = access_count + 1,
    last_accessed_at = ? WHERE id = ?`);
  const setNextDecay = db.prepare('UPDATE memories SET next_decay_at = ? WHERE id = ?');
  const deleteOne = db.prepare('DELETE FROM memories WHERE id = ?');
  const setInstance = db.prepare('UPDATE memories SET instance = ?, updated_at = ? WHERE id = ?');
  // A skip scan of the instance index: one probe per instance, not a read of every row.
  const instancesStmt = db.prepare(`WITH RECURSIVE names(name) AS (
      SELECT min(instance) FROM memories
      UNION ALL
      SELECT (SELECT min(instance) FROM memories WHERE instance > name) FROM names
      WHERE name IS NOT NULL)
    SELECT name FROM names WHERE name IS NOT NULL`);
  const servicesStmt = db.prepare(
    'SELECT DISTINCT service FROM memories WHERE service IS NOT NULL ORDER BY service',
  );
  const candidates = db.prepare(`SELECT ${COLUMNS} FROM memories
    WHERE active = 1 AND service IS ? AND category = ? ORDER BY confidence DESC, id`);
  const decayDue = db.prepare(`SELECT ${COLUMNS} FROM memories
    WHERE active = 1 AND pinned = 0 AND next_decay_at <= ?`);
  const history =
    db.prepare(`SELECT id, memory_id AS memoryId, action, old_confidence AS oldConfidence,
    new_confidence AS newConfidence, observation, session_id AS sessionId, created_at AS createdAt,
    related_memory_id AS relatedMemoryId, source, evidence FROM memory_history WHERE memory_id = ? ORDER BY created_at, id`);
  const eligibleCount = db.prepare(
    'SELECT COUNT(*) AS n FROM memories WHERE active = 1 AND confidence >= ?',
  );
  const contextServices = db.prepare(`SELECT service, MAX(confidence) AS top FROM memories
    WHERE active = 1 AND confidence >= ? GROUP BY service ORDER BY top DESC, service`);
  const contextGroup =
    db.prepare(`SELECT id, service, category, observation, confidence FROM memories
    WHERE active = 1 AND confidence >= ? AND service IS ?
    ORDER BY confidence DESC, last_reinforced_at DESC, id LIMIT ?`);

  const recordChange = (before: MemoryRow, change: MemoryChange): void => {
    update.run({
      id: change.id,
      confidence: change.confidence,
      active: change.active ? 1 : 0,
      observation: change.observation ?? null,
      pinned: change.pinned === undefined ? null : change.pinned ? 1 : 0,
      resetBase: change.resetBase ? 1 : 0,
      nextDecayAt: change.nextDecayAt ?? null,
      superseded: change.action === 'superseded' ? 1 : 0,
      related: change.relatedMemoryId ?? null,
      importance: change.importance ?? null,
      importanceBoost: change.importanceBoost ?? null,
      archive: change.archive === undefined ? 0 : change.archive === null ? 2 : 1,
      archiveReason: change.archive?.reason ?? null,
      mergedInto: change.mergedInto ?? null,
      at: change.at,
    });
    insertHistory.run(
      change.id,
      change.action,
      before.confidence,
      change.confidence,
      change.historyObservation ?? change.observation ?? null,
      change.sessionId ?? null,
      change.at,
      change.relatedMemoryId ?? null,
      change.source ?? null,
      change.evidence ?? null,
    );
  };

  const store = {
    create: db.transaction((m: NewMemory): number => {
      const source = m.source ?? (m.tier === 0 ? 'operator' : 'marker');
      const id = Number(
        insertMemory.run({
          service: m.service,
          category: m.category,
          observation: m.observation,
          confidence: m.confidence,
          pinned: m.pinned ? 1 : 0,
          sessionId: m.sessionId,
          tier: m.tier,
          at: m.at,
          nextDecayAt: m.nextDecayAt,
          importance: m.importance ?? 'normal',
          source,
          sourceRef: m.sourceRef ?? null,
          scope: m.scope ?? 'ops',
          instance: m.instance ?? 'local',
        }).lastInsertRowid,
      );
      insertHistory.run(
        id,
        'created',
        null,
        m.confidence,
        m.observation,
        m.sessionId,
        m.at,
        null,
        source,
        m.evidence ?? null,
      );
      return id;
    }),

    get(id: number): MemoryRow | null {
      const raw = getOne.get(id) as RawMemory | undefined;
      return raw ? fromRaw(raw) : null;
    },

    /** The rows of these ids that exist, in no particular order. */
    getMany(ids: readonly number[]): MemoryRow[] {
      if (ids.length === 0) return [];
      return (getManyStmt.all(JSON.stringify(ids)) as RawMemory[]).map(fromRaw);
    },

    /**
     * Active memories of a service (any category): the pool a new observation is compared with.
     * `visibleTo`: only that instance's memories and the fleet's.
     */
    activeOfService(
      service: string | null,
      scope = 'ops',
      limit = 2000,
      maxId = Number.MAX_SAFE_INTEGER,
      visibleTo?: string,
    ): MemoryRow[] {
      if (visibleTo !== undefined && hasOthers(visibleTo)) {
        return (
          cached(`SELECT ${COLUMNS} FROM memories WHERE active = 1 AND service IS ? AND scope = ?
            AND id <= ? AND +instance IN (?, '${FLEET}') ORDER BY confidence DESC, id LIMIT ?`).all(
            service,
            scope,
            maxId,
            visibleTo,
            limit,
          ) as RawMemory[]
        ).map(fromRaw);
      }
      return (
        cached(`SELECT ${COLUMNS} FROM memories WHERE active = 1 AND service IS ? AND scope = ?
          AND id <= ? ORDER BY confidence DESC, id LIMIT ?`).all(
          service,
          scope,
          maxId,
          limit,
        ) as RawMemory[]
      ).map(fromRaw);
    },

    list(filter: MemoryFilter = {}): MemoryRow[] {
      const { sql, params } = whereOf(withVisibility(filter, hasOthers));
      const rows = cached(
        `SELECT ${COLUMNS} FROM memories ${sql}
          ORDER BY active DESC, confidence DESC, updated_at DESC, id LIMIT ? OFFSET ?`,
      ).all(...params, filter.limit ?? 200, filter.offset ?? 0) as RawMemory[];
      return rows.map(fromRaw);
    },

    /** Every instance that has a memory (FLEET among them when one is shared), sorted. */
    instances(): string[] {
      return (instancesStmt.all() as { name: string }[]).map((r) => r.name);
    },

    /**
     * Moves a memory to another instance (FLEET: shares it), with an `edited` history entry
     * whose evidence says what happened and by which instance. Returns false when it does not
     * exist.
     */
    setInstance: db.transaction(
      (id: number, instance: string, at: number, evidence: string): boolean => {
        const before = getOne.get(id) as RawMemory | undefined;
        if (!before) return false;
        setInstance.run(instance, at, id);
        insertHistory.run(
          id,
          'edited',
          before.confidence,
          before.confidence,
          null,
          null,
          at,
          null,
          'operator',
          evidence,
        );
        return true;
      },
    ),

    /** Every service that has a memory, sorted (general memories are not listed). */
    services(): string[] {
      return (servicesStmt.all() as { service: string }[]).map((r) => r.service);
    },

    count(filter: MemoryFilter = {}): number {
      const { sql, params } = whereOf(withVisibility(filter, hasOthers));
      return (cached(`SELECT COUNT(*) AS n FROM memories ${sql}`).get(...params) as { n: number })
        .n;
    },

    /**
     * Runs reads and the changes computed from them in one transaction, so that another
     * instance's change in between is not overwritten (PostgreSQL runs it again; SQLite waits).
     */
    atomically<T>(fn: () => T): T {
      return db.transaction(fn)();
    },

    /** Applies changes computed by the caller, each with its history row, in one transaction. */
    change: db.transaction((changes: readonly MemoryChange[]): number => {
      let n = 0;
      for (const change of changes) {
        const raw = getOne.get(change.id) as RawMemory | undefined;
        if (!raw) continue;
        const before = fromRaw(raw);
        const { confidenceOf } = change;
        recordChange(
          before,
          confidenceOf ? { ...change, confidence: confidenceOf(before) } : change,
        );
        n += 1;
      }
      return n;
    }),

    /** Counts a read by a memory tool (seed 002 step 4); not a change, so no history row. */
    recordAccess: db.transaction((ids: readonly number[], at: number): void => {
      for (const id of new Set(ids)) touch.run(at, id);
    }),

    /** Deletes memories (their history stays, with a `deleted` entry). Returns how many existed. */
    remove: db.transaction((ids: readonly number[], at: number): number => {
      let n = 0;
      for (const id of ids) {
        const before = getOne.get(id) as RawMemory | undefined;
        if (!before) continue;
        deleteOne.run(id);
        insertHistory.run(
          id,
          'deleted',
          before.confidence,
          null,
          before.observation,
          null,
          at,
          null,
          null,
          null,
        );
        n += 1;
      }
      return n;
    }),

    /** Active memories of one (service, category): the pool a new observation may reinforce. */
    reinforcementCandidates(service: string | null, category: Category): MemoryRow[] {
      return (candidates.all(service, category) as RawMemory[]).map(fromRaw);
    },

    /** Active, unpinned memories whose next decay step is due at `now`. */
    decayDue(now: number): MemoryRow[] {
      return (decayDue.all(now) as RawMemory[]).map(fromRaw);
    },

    /** Records when each memory's next decay step falls due (no history: nothing changed). */
    scheduleDecay: db.transaction((updates: readonly { id: number; nextDecayAt: number }[]) => {
      for (const u of updates) setNextDecay.run(u.nextDecayAt, u.id);
    }),

    history(memoryId: number): HistoryRow[] {
      return history.all(memoryId) as HistoryRow[];
    },

    /**
     * How many memories the prompt block could include (active, at or above `threshold`);
     * `visibleTo`: only that instance's memories and the fleet's.
     */
    countEligible(threshold: number, scopes?: readonly string[], visibleTo?: string): number {
      if (visibleTo !== undefined && hasOthers(visibleTo)) {
        // The scope index serves the count; the instance is a row filter.
        const visible = `+instance IN (?, '${FLEET}')`;
        const row =
          scopes === undefined
            ? cached(`SELECT COUNT(*) AS n FROM memories WHERE active = 1 AND confidence >= ?
                AND ${visible}`).get(threshold, visibleTo)
            : cached(`SELECT COUNT(*) AS n FROM memories WHERE active = 1 AND confidence >= ?
                AND scope IN (SELECT value FROM json_each(?)) AND ${visible}`).get(
                threshold,
                JSON.stringify(scopes),
                visibleTo,
              );
        return (row as { n: number }).n;
      }
      if (scopes !== undefined) {
        return (
          cached(`SELECT COUNT(*) AS n FROM memories WHERE active = 1 AND confidence >= ?
            AND scope IN (SELECT value FROM json_each(?))`).get(
            threshold,
            JSON.stringify(scopes),
          ) as { n: number }
        ).n;
      }
      return (eligibleCount.get(threshold) as { n: number }).n;
    },

    /**
     * Groups for the prompt block, lazily: services ordered by their best confidence, each with
     * at most `perGroup` memories, fetched only when the consumer gets that far.
     */
    *contextGroups(
      threshold: number,
      perGroup: number,
    ): Generator<{ service: string | null; memories: ContextMemory[] }> {
      const services = contextServices.all(threshold) as { service: string | null }[];
      for (const { service } of services) {
        const memories = contextGroup.all(threshold, service, perGroup) as ContextMemory[];
        yield { service, memories };
      }
    },
  };
  return store;
}

export type MemoryStore = ReturnType<typeof createMemoryStore>;
