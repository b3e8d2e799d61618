/**
 * Changing memories: each mutating method writes the memory rows and their memory_history entries
 * in one transaction; the values themselves (confidence after a reinforcement or decay) are
 * computed by the caller with the pure functions of src/memory.
 *
 * A batch of any size costs the same few statements: the rows and their values travel as one JSON
 * parameter (`json_each`), so that with PostgreSQL on another host a bulk action on 50 memories
 * waits for as many network round trips as one on a single memory (test/db/round-trips.test.ts).
 */
import {
  type Db,
  insertedId,
  movedMeanwhile,
  retryWhileMoved,
  runAwaited,
  runSteps,
  writeAwaited,
  writeNow,
  type WriteStep,
} from '../engine.js';
import { keyedQueue } from '../keyed-queue.js';
import {
  changeStatements,
  type HistoryEntry,
  historySteps,
  ID,
  field,
  planChanges,
} from './memory-change-plan.js';
import type { memoryReads } from './memory-reads.js';
import { FLEET, type MemoryChange, type MemoryRow, type NewMemory } from './memory-types.js';

/**
 * How often an awaited change is tried (read, then written) before it reads and writes in one
 * synchronous transaction instead, when another instance changed its rows meanwhile each time.
 */
const AWAITED_ATTEMPTS = 3;

/** `reads`: the store's reads (memory-reads.ts), for the rows a change starts from. */
export function memoryWrites(
  db: Db,
  reads: Pick<
    ReturnType<typeof memoryReads>,
    'get' | 'getMany' | 'getAwaited' | 'getManyAwaited' | 'decayDue' | 'decayDueAwaited'
  >,
) {
  const insertMemory = db.prepare(`INSERT INTO memories (service, category, observation, confidence,
    base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier,
    next_decay_at, importance, source, source_ref, scope, instance)
    VALUES (@service, @category, @observation, @confidence, @confidence, 1, @pinned, @at, @at, @at,
    @sessionId, @tier, @nextDecayAt, @importance, @source, @sourceRef, @scope, @instance)`);
  // The history row of a new memory, whose id the INSERT before it made (`insertedId`).
  const createdHistory = db.prepare(`INSERT INTO memory_history (memory_id, action,
    old_confidence, new_confidence, observation, session_id, created_at, related_memory_id, source,
    evidence) VALUES (?, 'created', NULL, ?, ?, ?, ?, NULL, ?, ?)`);
  const changes = changeStatements(db);
  // This process's own awaited changes of one memory, one after another.
  const inTurn = keyedQueue<number>();
  const touch = db.prepare(`UPDATE memories SET access_count = access_count + 1,
    last_accessed_at = ? WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))`);
  const setNextDecay = db.prepare(`UPDATE memories SET next_decay_at = n_next
    FROM (SELECT ${ID} AS n_id, ${field('next', 'BIGINT')} AS n_next FROM json_each(?)) AS batch
    WHERE id = n_id`);
  const deleteMany = db.prepare(
    'DELETE FROM memories WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))',
  );
  // Takes the rows a deletion read, while they are as read (their last change's time): the
  // DELETE after it in the same transaction then deletes what was read, nothing changed since.
  const holdAsRead = db.prepare(`UPDATE memories SET updated_at = updated_at
    FROM (SELECT ${ID} AS n_id, ${field('at', 'REAL')} AS n_at FROM json_each(?)) AS batch
    WHERE id = n_id AND updated_at = n_at`);
  // Only while the row is as it was read (its last change's time).
  const setInstanceAsRead = db.prepare(`UPDATE memories SET instance = ?, updated_at = ?
    WHERE id = ? AND updated_at = CAST(? AS REAL)`);

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
  /** The same rows, read awaited (outside any transaction: the UPDATE's guard checks them). */
  const beforesAwaited = async (ids: readonly number[]): Promise<Map<number, MemoryRow>> => {
    const unique = [...new Set(ids)];
    const rows =
      unique.length === 1
        ? [await reads.getAwaited(unique[0]!)].filter((m) => m !== null)
        : await reads.getManyAwaited(unique);
    return new Map(rows.map((m) => [m.id, m]));
  };
  const writeHistory = (entries: readonly HistoryEntry[]) => {
    runSteps(historySteps(changes, entries));
  };

  const applyChanges = db.transaction((list: readonly MemoryChange[]): number => {
    const plan = planChanges(changes, befores(list.map((c) => c.id)), list);
    runSteps(plan.steps);
    return plan.count;
  });

  /** A new memory's row and its `created` history row, as one write. */
  const createSteps = (m: NewMemory): WriteStep[] => {
    const source = m.source ?? (m.tier === 0 ? 'operator' : 'marker');
    return [
      {
        stmt: insertMemory,
        params: [
          {
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
          },
        ],
      },
      {
        stmt: createdHistory,
        params: [
          insertedId(0),
          m.confidence,
          m.observation,
          m.sessionId,
          m.at,
          source,
          m.evidence ?? null,
        ],
      },
    ];
  };

  return {
    /** A new memory with its `created` history row; returns its id. */
    create: (m: NewMemory): number => Number(writeNow(db, createSteps(m))[0]!.lastInsertRowid),

    /** The same, awaited: on PostgreSQL the event loop goes on meanwhile (engine.ts). */
    createAwaited: async (m: NewMemory): Promise<number> =>
      Number((await writeAwaited(db, createSteps(m)))[0]!.lastInsertRowid),

    /**
     * Moves a memory to another instance, from the row as the caller read it, with a `shared`
     * history entry when that is the fleet (FLEET), `unshared` otherwise, whose evidence says by
     * which instance: one awaited transaction. Throws WriteConflict, nothing written, when the
     * row changed or went since it was read.
     */
    async setInstanceAwaited(
      before: MemoryRow,
      instance: string,
      at: number,
      evidence: string,
    ): Promise<void> {
      await writeAwaited(db, [
        {
          stmt: setInstanceAsRead,
          params: [instance, at, before.id, before.updatedAt],
          expect: 1,
        },
        ...historySteps(changes, [
          {
            id: before.id,
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
        ]),
      ]);
    },

    /** Applies changes computed by the caller, each with its history row, in one transaction. */
    change: (list: readonly MemoryChange[]): number => (list.length === 0 ? 0 : applyChanges(list)),

    /**
     * The same, awaited: the rows are read, the changes computed from them and written in a
     * transaction of their own; when another instance changed one of the rows in between, all
     * over again, and after a few such times in one synchronous transaction.
     */
    async changeAwaited(list: readonly MemoryChange[]): Promise<number> {
      if (list.length === 0) return 0;
      const ids = list.map((c) => c.id);
      return inTurn(ids, async () => {
        try {
          return await retryWhileMoved(async () => {
            const plan = planChanges(changes, await beforesAwaited(ids), list);
            await writeAwaited(db, plan.steps);
            return plan.count;
          }, AWAITED_ATTEMPTS);
        } catch (err) {
          if (!movedMeanwhile(err)) throw err;
          // Rows another instance keeps changing: read and write in one transaction, which
          // PostgreSQL orders with the other's (the event loop waits for this one).
          return applyChanges(list);
        }
      });
    },

    /** Counts a read by a memory tool (seed 002 step 4); not a change, so no history row. */
    recordAccess(ids: readonly number[], at: number): void {
      if (ids.length > 0) touch.run(at, JSON.stringify([...new Set(ids)]));
    },

    async recordAccessAwaited(ids: readonly number[], at: number): Promise<void> {
      if (ids.length > 0) await runAwaited(touch, at, JSON.stringify([...new Set(ids)]));
    },

    /** Deletes memories (their history stays, with a `deleted` entry). Returns how many existed. */
    remove: db.transaction((ids: readonly number[], at: number): number => {
      const rows = [...befores(ids).values()];
      if (rows.length === 0) return 0;
      deleteMany.run(JSON.stringify(rows.map((r) => r.id)));
      writeHistory(rows.map((r) => deletedEntry(r, at)));
      return rows.length;
    }),

    /**
     * Deletes these rows as read, with their `deleted` history entries and the steps given (the
     * tombstones), in one awaited transaction. Throws WriteConflict, nothing written, when one of
     * them changed or went since it was read: read again and retry.
     */
    async removeAwaited(
      rows: readonly MemoryRow[],
      at: number,
      alongside: readonly WriteStep[],
    ): Promise<number> {
      if (rows.length === 0) return 0;
      const ids = JSON.stringify(rows.map((r) => r.id));
      await writeAwaited(db, [
        {
          stmt: holdAsRead,
          params: [JSON.stringify(rows.map((r) => ({ id: r.id, at: r.updatedAt })))],
          expect: rows.length,
        },
        ...alongside,
        { stmt: deleteMany, params: [ids] },
        ...historySteps(
          changes,
          rows.map((r) => deletedEntry(r, at)),
        ),
      ]);
      return rows.length;
    },

    /**
     * A decay step, awaited: the memories due at `now` are read, `plan` says what changes and
     * when the unchanged ones fall due next, and both are written in one transaction guarded on
     * the rows as read; all again when another instance changed one of them meanwhile (its
     * reinforcement is kept), and after a few such times in one synchronous transaction (and if
     * even that finds one changed, not now: null). Nothing due (the usual case before a session's
     * block): one read, no transaction, null.
     */
    async decayAwaited<R>(now: number, plan: (due: readonly MemoryRow[]) => DecayPlan<R>) {
      const steps = (due: readonly MemoryRow[], p: DecayPlan<R>): WriteStep[] => [
        ...planChanges(changes, new Map(due.map((m) => [m.id, m])), p.changes).steps,
        ...(p.unchanged.length === 0
          ? []
          : [{ stmt: setNextDecay, params: [nextDecayJson(p.unchanged)] }]),
      ];
      try {
        return await retryWhileMoved(async () => {
          const due = await reads.decayDueAwaited(now);
          if (due.length === 0) return null;
          const p = plan(due);
          await writeAwaited(db, steps(due, p));
          return p.report;
        }, AWAITED_ATTEMPTS);
      } catch (err) {
        if (!movedMeanwhile(err)) throw err;
        try {
          return db.transaction(() => {
            const due = reads.decayDue(now);
            const p = plan(due);
            runSteps(steps(due, p));
            return p.report;
          })();
        } catch (again) {
          // Still changing under it: the step is left to the next call (it is idempotent).
          if (movedMeanwhile(again)) return null;
          throw again;
        }
      }
    },
  };
}

/** What a decay step changes, and when the memories it leaves as they are fall due next. */
export interface DecayPlan<R> {
  changes: MemoryChange[];
  unchanged: { id: number; nextDecayAt: number }[];
  report: R;
}

const nextDecayJson = (updates: readonly { id: number; nextDecayAt: number }[]) =>
  JSON.stringify(updates.map((u) => ({ id: u.id, next: u.nextDecayAt })));

/** A deleted memory's history entry: its last wording and confidence. */
const deletedEntry = (r: MemoryRow, at: number): HistoryEntry => ({
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
});
