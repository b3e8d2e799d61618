/**
 * Which memories each session was given (the block at its start, the in-session hook), with their
 * scores, and each memory's surfacing counters.
 */
import { allAwaited, runAwaited, writeAwaited, WriteConflict, type WriteStep } from '../engine.js';
import { type Db, engineOf } from '../open.js';

export type SurfacedVia = 'context' | 'hook';

export interface Surfaced {
  memoryId: number;
  score: number | null;
  /** Why it ranked there (the score's components), as JSON-able data. */
  detail?: unknown;
}

export interface SessionMemoryRow {
  memoryId: number;
  via: SurfacedVia;
  score: number | null;
  detail: unknown;
  createdAt: number;
  service: string | null;
  category: string | null;
  observation: string | null;
}

export function createSurfacingStore(db: Db) {
  // One statement for all of a block's memories, whatever its size (each statement is a network
  // round trip on PostgreSQL): the items come as three JSON arrays joined by position, written in
  // their order; `WHERE true` keeps SQLite from reading the upsert's ON as the join's.
  const insert = db.prepare(`INSERT INTO session_memories (session_id, memory_id, via, score,
      detail_json, created_at)
    SELECT ?, CAST(m.value AS INTEGER), ?, CAST(s.value AS REAL), d.value, ?
    FROM json_each(?) m JOIN json_each(?) s ON s.key = m.key JOIN json_each(?) d ON d.key = m.key
    WHERE true ORDER BY m.key
    ON CONFLICT DO NOTHING RETURNING memory_id AS memoryId`);
  const bump = db.prepare(`UPDATE memories SET last_surfaced_at = ?,
    surface_count = surface_count + 1 WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`);
  const ofSession = db.prepare('SELECT memory_id AS id FROM session_memories WHERE session_id = ?');
  const rows = db.prepare(`SELECT sm.memory_id AS memoryId, sm.via, sm.score,
    sm.detail_json AS detail, sm.created_at AS createdAt, m.service, m.category, m.observation
    FROM session_memories sm LEFT JOIN memories m ON m.id = sm.memory_id
    WHERE sm.session_id = ? ORDER BY sm.created_at, ${
      // In the order they were recorded: SQLite's rowid. PostgreSQL has none; the row's
      // position in the table follows the order of insertion while no space freed by deleted
      // rows is reused.
      engineOf(db) === 'postgres' ? 'sm.ctid' : 'sm.rowid'
    }`);

  const insertSteps = (
    sessionId: number,
    items: readonly Surfaced[],
    via: SurfacedVia,
    at: number,
  ) =>
    [
      {
        stmt: insert,
        params: [
          sessionId,
          via,
          at,
          JSON.stringify(items.map((i) => i.memoryId)),
          JSON.stringify(items.map((i) => i.score)),
          JSON.stringify(
            items.map((i) => (i.detail === undefined ? null : JSON.stringify(i.detail))),
          ),
        ],
        // Every one new, or none kept: see `record`.
        expect: items.length,
      },
      { stmt: bump, params: [at, JSON.stringify(items.map((i) => i.memoryId))] },
    ] satisfies WriteStep[];

  const surfacedIn = async (sessionId: number): Promise<Set<number>> =>
    new Set(((await allAwaited(ofSession, sessionId)) as { id: number }[]).map((r) => r.id));

  return {
    /**
     * Records what a session was given; a memory already given to it is not counted twice.
     * Awaited (the in-session hook answers while the session waits): its rows and counters in
     * one transaction of their own, which keeps nothing when one of them was given meanwhile
     * (another hook of the same session, at once); then again without it.
     */
    async record(
      sessionId: number | null,
      items: readonly Surfaced[],
      via: SurfacedVia,
      at: number,
    ): Promise<void> {
      if (sessionId === null) {
        if (items.length > 0)
          await runAwaited(bump, at, JSON.stringify(items.map((i) => i.memoryId)));
        return;
      }
      let left = [...new Map(items.map((i) => [i.memoryId, i])).values()];
      for (;;) {
        if (left.length === 0) return;
        try {
          await writeAwaited(db, insertSteps(sessionId, left, via, at));
          return;
        } catch (err) {
          if (!(err instanceof WriteConflict)) throw err;
          const given = await surfacedIn(sessionId);
          const next = left.filter((i) => !given.has(i.memoryId));
          if (next.length === left.length) throw err;
          left = next;
        }
      }
    },

    /** Ids of the memories this session has already been given. */
    surfacedIn,

    async forSession(sessionId: number): Promise<SessionMemoryRow[]> {
      const read = (await allAwaited(rows, sessionId)) as (SessionMemoryRow & {
        detail: string | null;
      })[];
      return read.map((r) => ({
        ...r,
        detail: r.detail === null ? null : (JSON.parse(r.detail) as unknown),
      }));
    },
  };
}

export type SurfacingStore = ReturnType<typeof createSurfacingStore>;
