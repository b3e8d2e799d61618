/**
 * Changing memories: each mutating method writes the memory rows and their memory_history entries
 * in one transaction; the values themselves (confidence after a reinforcement or decay) are
 * computed by the caller with the pure functions of src/memory.
 *
 * A batch of any size costs the same few statements: the rows and their values travel as one JSON
 * parameter (`json_each`), so that with PostgreSQL on another host a bulk action on 50 memories
 * waits for as many network round trips as one on a single memory (test/db/round-trips.test.ts).
 */
import type { Db } from '../engine.js';
import type { memoryReads } from './memory-reads.js';
import { FLEET, type MemoryChange, type MemoryRow, type NewMemory } from './memory-types.js';

/** A JSON batch's field `key` as SQL, cast so that both engines read the same value. */
const field = (key: string, type?: 'BIGINT' | 'REAL' | 'TEXT') =>
  type ? `CAST(json_extract(value, '$.${key}') AS ${type})` : `json_extract(value, '$.${key}')`;
const ID = field('id', 'BIGINT');

/** memory_history rows from a JSON batch: one element per row, in order. */
const HISTORY_FROM_BATCH = `INSERT INTO memory_history (memory_id, action, old_confidence,
  new_confidence, observation, session_id, created_at, related_memory_id, source, evidence)
  SELECT ${ID}, ${field('action')}, ${field('old', 'REAL')}, ${field('new', 'REAL')},
    ${field('observation')}, ${field('sessionId', 'BIGINT')}, ${field('at', 'BIGINT')},
    ${field('related', 'BIGINT')}, ${field('source')}, ${field('evidence')}
  FROM json_each(?) ORDER BY key`;

interface HistoryEntry {
  id: number;
  action: string;
  old: number | null;
  new: number | null;
  observation: string | null;
  sessionId: number | null;
  at: number;
  related: number | null;
  source: string | null;
  evidence: string | null;
}

/** The values of a memory change, each as the UPDATE reads it: [key, SQL type, column name]. */
const UPDATE_VALUES: readonly [string, 'BIGINT' | 'REAL' | 'TEXT', string][] = [
  ['id', 'BIGINT', 'n_id'],
  ['confidence', 'REAL', 'n_confidence'],
  ['active', 'BIGINT', 'n_active'],
  ['observation', 'TEXT', 'n_observation'],
  ['pinned', 'BIGINT', 'n_pinned'],
  ['resetBase', 'BIGINT', 'n_reset_base'],
  ['nextDecayAt', 'BIGINT', 'n_next_decay_at'],
  ['superseded', 'BIGINT', 'n_superseded'],
  ['related', 'BIGINT', 'n_related'],
  ['importance', 'TEXT', 'n_importance'],
  ['importanceBoost', 'REAL', 'n_importance_boost'],
  ['archive', 'BIGINT', 'n_archive'],
  ['archiveReason', 'TEXT', 'n_archive_reason'],
  ['mergedInto', 'BIGINT', 'n_merged_into'],
  ['at', 'BIGINT', 'n_at'],
];

/**
 * The UPDATE of memory changes, their values read by `value` from the rows of `from` (a JSON
 * batch, or none: named parameters). Its columns are named n_* so that no name is both the
 * values' and the table's.
 */
const updateFrom = (
  value: (key: string, type: 'BIGINT' | 'REAL' | 'TEXT') => string,
  from: string,
) =>
  `UPDATE memories SET confidence = n_confidence, active = n_active,
    observation = COALESCE(n_observation, observation), pinned = COALESCE(n_pinned, pinned),
    base_confidence = CASE WHEN n_reset_base = 1 THEN n_confidence ELSE base_confidence END,
    last_reinforced_at = CASE WHEN n_reset_base = 1 THEN n_at ELSE last_reinforced_at END,
    next_decay_at = COALESCE(n_next_decay_at, next_decay_at),
    superseded_by = CASE WHEN n_superseded = 1 THEN n_related ELSE superseded_by END,
    importance = COALESCE(n_importance, importance),
    importance_boost = COALESCE(n_importance_boost, importance_boost),
    archived_at = CASE WHEN n_active = 1 OR n_archive = 2 THEN NULL
      WHEN n_archive = 1 THEN n_at ELSE archived_at END,
    archive_reason = CASE WHEN n_active = 1 OR n_archive = 2 THEN NULL
      WHEN n_archive = 1 THEN n_archive_reason ELSE archive_reason END,
    merged_into = COALESCE(n_merged_into, merged_into),
    updated_at = n_at
    FROM (SELECT ${UPDATE_VALUES.map(([key, type, name]) => `${value(key, type)} AS ${name}`).join(', ')}${from}) AS batch
    WHERE id = n_id`;

/** `reads`: the store's reads (memory-reads.ts), for the rows a change starts from. */
export function memoryWrites(
  db: Db,
  reads: Pick<ReturnType<typeof memoryReads>, 'get' | 'getMany'>,
) {
  const insertMemory = db.prepare(`INSERT INTO memories (service, category, observation, confidence,
    base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier,
    next_decay_at, importance, source, source_ref, scope, instance)
    VALUES (@service, @category, @observation, @confidence, @confidence, 1, @pinned, @at, @at, @at,
    @sessionId, @tier, @nextDecayAt, @importance, @source, @sourceRef, @scope, @instance)`);
  const insertHistories = db.prepare(HISTORY_FROM_BATCH);
  const update = db.prepare(updateFrom(field, ' FROM json_each(?)'));
  // One memory (a reinforcement, an edit) by point statements: under PostgreSQL's serializable
  // transactions they lock that row, where a batch's read may scan the table, and two instances
  // reinforcing at once would then conflict on every write.
  const updateOne = db.prepare(updateFrom((key, type) => `CAST(@${key} AS ${type})`, ''));
  const touch = db.prepare(`UPDATE memories SET access_count = access_count + 1,
    last_accessed_at = ? WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))`);
  const setNextDecay = db.prepare(`UPDATE memories SET next_decay_at = n_next
    FROM (SELECT ${ID} AS n_id, ${field('next', 'BIGINT')} AS n_next FROM json_each(?)) AS batch
    WHERE id = n_id`);
  const deleteMany = db.prepare(
    'DELETE FROM memories WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))',
  );
  const setInstance = db.prepare('UPDATE memories SET instance = ?, updated_at = ? WHERE id = ?');

  /**
   * The rows of these ids that exist, by id: one memory by its key (a point read, which locks that
   * row alone under PostgreSQL's serializable transactions), several in one statement.
   */
  const befores = (ids: readonly number[]): Map<number, MemoryRow> => {
    const unique = [...new Set(ids)];
    const rows =
      unique.length === 1
        ? [reads.get(unique[0]!)].filter((m) => m !== null)
        : reads.getMany(unique);
    return new Map(rows.map((m) => [m.id, m]));
  };
  const writeHistory = (entries: readonly HistoryEntry[]) => {
    if (entries.length > 0) insertHistories.run(JSON.stringify(entries));
  };

  const applyChanges = db.transaction((changes: readonly MemoryChange[]): number => {
    const rows = befores(changes.map((c) => c.id));
    const applied: { before: MemoryRow; change: MemoryChange }[] = [];
    for (const change of changes) {
      const before = rows.get(change.id);
      if (!before) continue;
      const { confidenceOf } = change;
      const next = confidenceOf ? { ...change, confidence: confidenceOf(before) } : change;
      applied.push({ before, change: next });
      // A later change of the same memory in the batch starts from this one.
      rows.set(change.id, { ...before, confidence: next.confidence, active: next.active });
    }
    if (applied.length === 0) return 0;
    // One row of the UPDATE per memory: a memory changed twice in a batch gets the later
    // change's values over the earlier's (each change's history row stays its own).
    const last = new Map<number, MemoryChange>();
    for (const { change } of applied) {
      const defined = Object.entries(change).filter(([, v]) => v !== undefined);
      last.set(change.id, {
        ...last.get(change.id),
        ...Object.fromEntries(defined),
      } as MemoryChange);
    }
    const values = [...last.values()].map((c) => ({
      id: c.id,
      confidence: c.confidence,
      active: c.active ? 1 : 0,
      observation: c.observation ?? null,
      pinned: c.pinned === undefined ? null : c.pinned ? 1 : 0,
      resetBase: c.resetBase ? 1 : 0,
      nextDecayAt: c.nextDecayAt ?? null,
      superseded: c.action === 'superseded' ? 1 : 0,
      related: c.relatedMemoryId ?? null,
      importance: c.importance ?? null,
      importanceBoost: c.importanceBoost ?? null,
      archive: c.archive === undefined ? 0 : c.archive === null ? 2 : 1,
      archiveReason: c.archive?.reason ?? null,
      mergedInto: c.mergedInto ?? null,
      at: c.at,
    }));
    if (values.length === 1) updateOne.run(values[0]!);
    else update.run(JSON.stringify(values));
    writeHistory(
      applied.map(({ before, change: c }) => ({
        id: c.id,
        action: c.action,
        old: before.confidence,
        new: c.confidence,
        observation: c.historyObservation ?? c.observation ?? null,
        sessionId: c.sessionId ?? null,
        at: c.at,
        related: c.relatedMemoryId ?? null,
        source: c.source ?? null,
        evidence: c.evidence ?? null,
      })),
    );
    return applied.length;
  });

  return {
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
      writeHistory([
        {
          id,
          action: 'created',
          old: null,
          new: m.confidence,
          observation: m.observation,
          sessionId: m.sessionId,
          at: m.at,
          related: null,
          source,
          evidence: m.evidence ?? null,
        },
      ]);
      return id;
    }),

    /**
     * Moves a memory to another instance, with a `shared` history entry when that is the fleet
     * (FLEET), `unshared` otherwise, whose evidence says by which instance. Returns false when
     * it does not exist.
     */
    setInstance: db.transaction(
      (id: number, instance: string, at: number, evidence: string): boolean => {
        const before = reads.get(id);
        if (!before) return false;
        setInstance.run(instance, at, id);
        writeHistory([
          {
            id,
            action: instance === FLEET ? 'shared' : 'unshared',
            old: before.confidence,
            new: before.confidence,
            observation: null,
            sessionId: null,
            at,
            related: null,
            source: 'operator',
            evidence,
          },
        ]);
        return true;
      },
    ),

    /**
     * Runs reads and the changes computed from them in one transaction, so that another
     * instance's change in between is not overwritten (PostgreSQL runs it again; SQLite waits).
     */
    atomically<T>(fn: () => T): T {
      return db.transaction(fn)();
    },

    /** Applies changes computed by the caller, each with its history row, in one transaction. */
    change: (changes: readonly MemoryChange[]): number =>
      changes.length === 0 ? 0 : applyChanges(changes),

    /** Counts a read by a memory tool (seed 002 step 4); not a change, so no history row. */
    recordAccess(ids: readonly number[], at: number): void {
      if (ids.length > 0) touch.run(at, JSON.stringify([...new Set(ids)]));
    },

    /** Deletes memories (their history stays, with a `deleted` entry). Returns how many existed. */
    remove: db.transaction((ids: readonly number[], at: number): number => {
      const rows = [...befores(ids).values()];
      if (rows.length === 0) return 0;
      deleteMany.run(JSON.stringify(rows.map((r) => r.id)));
      writeHistory(
        rows.map((r) => ({
          id: r.id,
          action: 'deleted',
          old: r.confidence,
          new: null,
          observation: r.observation,
          sessionId: null,
          at,
          related: null,
          source: null,
          evidence: null,
        })),
      );
      return rows.length;
    }),

    /** Records when each memory's next decay step falls due (no history: nothing changed). */
    scheduleDecay(updates: readonly { id: number; nextDecayAt: number }[]): void {
      if (updates.length === 0) return;
      setNextDecay.run(JSON.stringify(updates.map((u) => ({ id: u.id, next: u.nextDecayAt }))));
    },
  };
}
