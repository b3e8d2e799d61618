/**
 * Changing memories: each mutating method writes the memory row and its memory_history entry in
 * one transaction; the values themselves (confidence after a reinforcement or decay) are
 * computed by the caller with the pure functions of src/memory.
 */
import type { Db } from '../engine.js';
import { COLUMNS, fromRaw, type RawMemory } from './memory-columns.js';
import { FLEET, type MemoryChange, type MemoryRow, type NewMemory } from './memory-types.js';

export function memoryWrites(db: Db) {
  const insertMemory = db.prepare(`INSERT INTO memories (service, category, observation, confidence,
    base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier,
    next_decay_at, importance, source, source_ref, scope, instance)
    VALUES (@service, @category, @observation, @confidence, @confidence, 1, @pinned, @at, @at, @at,
    @sessionId, @tier, @nextDecayAt, @importance, @source, @sourceRef, @scope, @instance)`);
  const insertHistory = db.prepare(`INSERT INTO memory_history
    (memory_id, action, old_confidence, new_confidence, observation, session_id, created_at,
    related_memory_id, source, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM memories WHERE id = ?`);
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

    /**
     * Moves a memory to another instance, with a `shared` history entry when that is the fleet
     * (FLEET), `unshared` otherwise, whose evidence says by which instance. Returns false when
     * it does not exist.
     */
    setInstance: db.transaction(
      (id: number, instance: string, at: number, evidence: string): boolean => {
        const before = getOne.get(id) as RawMemory | undefined;
        if (!before) return false;
        setInstance.run(instance, at, id);
        insertHistory.run(
          id,
          instance === FLEET ? 'shared' : 'unshared',
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

    /** Records when each memory's next decay step falls due (no history: nothing changed). */
    scheduleDecay: db.transaction((updates: readonly { id: number; nextDecayAt: number }[]) => {
      for (const u of updates) setNextDecay.run(u.nextDecayAt, u.id);
    }),
  };
}
