/** Reading the sessions table: one session, filtered pages, chains of escalations, memory activity. */
import type { HistoryRow } from '../memories/memories.js';
import { allAwaited, getAwaited } from '../engine.js';
import { type Db, statementCache } from '../open.js';
import { type SessionFilter, sessionWhere } from './session-filter.js';
import type { SessionRow } from './session-types.js';

export const SESSION_COLUMNS = `id, status, trigger, tier, model, prompt, parent_session_id AS parentSessionId,
  cli_session_id AS cliSessionId, started_at AS startedAt, ended_at AS endedAt,
  exit_code AS exitCode, result_subtype AS resultSubtype, is_error AS isError, cost_usd AS costUsd,
  num_turns AS numTurns, duration_ms AS durationMs, duration_api_ms AS durationApiMs,
  usage_json AS usage, response, error, log_path AS logPath, stream_stats_json AS streamStats,
  simulated, instance, heartbeat_at AS heartbeatAt`;

export type RawSession = Omit<SessionRow, 'isError' | 'usage' | 'streamStats' | 'simulated'> & {
  isError: number | null;
  simulated: number;
  usage: string | null;
  streamStats: string | null;
};

export function sessionFromRaw(raw: RawSession): SessionRow {
  return {
    ...raw,
    isError: raw.isError === null ? null : raw.isError === 1,
    simulated: raw.simulated === 1,
    usage: raw.usage === null ? null : (JSON.parse(raw.usage) as Record<string, unknown>),
    streamStats:
      raw.streamStats === null ? null : (JSON.parse(raw.streamStats) as Record<string, unknown>),
  };
}

export function sessionReads(db: Db) {
  const getOne = db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`);
  const list = db.prepare(
    `SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY id DESC LIMIT ? OFFSET ?`,
  );
  const byCli = db.prepare(
    `SELECT ${SESSION_COLUMNS} FROM sessions WHERE cli_session_id = ? ORDER BY id`,
  );
  const countAll = db.prepare('SELECT COUNT(*) AS n FROM sessions');
  const cached = statementCache(db);
  const children = db.prepare(
    `SELECT ${SESSION_COLUMNS} FROM sessions WHERE parent_session_id = ? ORDER BY id`,
  );
  // Walks the parent links up and down; the depth cap keeps a corrupt cycle from looping.
  const ancestors = db.prepare(`WITH RECURSIVE up(id, depth) AS (
      SELECT parent_session_id, 1 FROM sessions WHERE id = ? AND parent_session_id IS NOT NULL
      UNION ALL
      SELECT s.parent_session_id, up.depth + 1 FROM sessions s JOIN up ON s.id = up.id
      WHERE s.parent_session_id IS NOT NULL AND up.depth < 100)
    SELECT ${SESSION_COLUMNS} FROM sessions WHERE id IN (SELECT id FROM up) ORDER BY id`);
  const descendants = db.prepare(`WITH RECURSIVE down(id, depth) AS (
      SELECT id, 1 FROM sessions WHERE parent_session_id = ?
      UNION ALL
      SELECT s.id, down.depth + 1 FROM sessions s JOIN down ON s.parent_session_id = down.id
      WHERE down.depth < 100)
    SELECT ${SESSION_COLUMNS} FROM sessions WHERE id IN (SELECT id FROM down) ORDER BY id`);
  const memoryHistory = db.prepare(`SELECT id, memory_id AS memoryId, action,
    old_confidence AS oldConfidence, new_confidence AS newConfidence, observation,
    session_id AS sessionId, created_at AS createdAt
    FROM memory_history WHERE session_id = ? ORDER BY created_at, id`);
  const createdMemories = db.prepare('SELECT id FROM memories WHERE session_id = ? ORDER BY id');

  const rowsOf = (raw: unknown[]) => (raw as RawSession[]).map(sessionFromRaw);
  const listQuery = (opts: { limit?: number; offset?: number; filter?: SessionFilter }) => {
    const page = [opts.limit ?? 50, opts.offset ?? 0];
    if (!opts.filter) return { stmt: list, params: page };
    const { where, params } = sessionWhere(opts.filter);
    return {
      stmt: cached(
        `SELECT ${SESSION_COLUMNS} FROM sessions ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
      ),
      params: [...params, ...page],
    };
  };
  const countQuery = (filter?: SessionFilter) => {
    if (!filter) return { stmt: countAll, params: [] };
    const { where, params } = sessionWhere(filter);
    return { stmt: cached(`SELECT COUNT(*) AS n FROM sessions ${where}`), params };
  };

  return {
    get(id: number): SessionRow | null {
      const raw = getOne.get(id) as RawSession | undefined;
      return raw ? sessionFromRaw(raw) : null;
    },
    /** The awaited forms of the reads a session's page makes (on PostgreSQL the loop goes on). */
    async getAwaited(id: number): Promise<SessionRow | null> {
      const raw = (await getAwaited(getOne, id)) as RawSession | undefined;
      return raw ? sessionFromRaw(raw) : null;
    },
    childrenAwaited: async (id: number) => rowsOf(await allAwaited(children, id)),
    ancestorsAwaited: async (id: number) => rowsOf(await allAwaited(ancestors, id)),
    descendantsAwaited: async (id: number) => rowsOf(await allAwaited(descendants, id)),
    list(opts: { limit?: number; offset?: number; filter?: SessionFilter } = {}): SessionRow[] {
      const q = listQuery(opts);
      return (q.stmt.all(...q.params) as RawSession[]).map(sessionFromRaw);
    },
    /** The same, awaited (the API's list, which scripts poll). */
    async listAwaited(
      opts: { limit?: number; offset?: number; filter?: SessionFilter } = {},
    ): Promise<SessionRow[]> {
      const q = listQuery(opts);
      return ((await allAwaited(q.stmt, ...q.params)) as RawSession[]).map(sessionFromRaw);
    },
    byCliSessionId(cliSessionId: string): SessionRow[] {
      return (byCli.all(cliSessionId) as RawSession[]).map(sessionFromRaw);
    },
    /** How many sessions the filter selects (awaited: the API's list). */
    async count(filter?: SessionFilter): Promise<number> {
      const q = countQuery(filter);
      return ((await getAwaited(q.stmt, ...q.params)) as { n: number }).n;
    },
    /** Sessions started by this one (its escalations), oldest first. */
    children(id: number): SessionRow[] {
      return (children.all(id) as RawSession[]).map(sessionFromRaw);
    },
    /** How many children each of `ids` has; ids without children are absent from the map. */
    childCounts(ids: readonly number[]): Map<number, number> {
      const out = new Map<number, number>();
      if (ids.length === 0) return out;
      const rows = db
        .prepare(
          `SELECT parent_session_id AS id, COUNT(*) AS n FROM sessions
          WHERE parent_session_id IN (${ids.map(() => '?').join(', ')})
          GROUP BY parent_session_id`,
        )
        .all(...ids) as { id: number; n: number }[];
      for (const r of rows) out.set(r.id, r.n);
      return out;
    },
    /** The parent, its parent and so on up to the chain's first session, oldest first. */
    ancestors(id: number): SessionRow[] {
      return (ancestors.all(id) as RawSession[]).map(sessionFromRaw);
    },
    /** Every session below this one in its chain (children, theirs, ...), by id. */
    descendants(id: number): SessionRow[] {
      return (descendants.all(id) as RawSession[]).map(sessionFromRaw);
    },
    /**
     * What a session did to memories: the memory_history entries it wrote, and the ids of the
     * memories whose row names it as their creator (an entry may be missing for those).
     */
    async memoryActivity(id: number): Promise<{ history: HistoryRow[]; createdIds: number[] }> {
      const [history, created] = await Promise.all([
        allAwaited(memoryHistory, id),
        allAwaited(createdMemories, id),
      ]);
      return {
        history: history as HistoryRow[],
        createdIds: (created as { id: number }[]).map((r) => r.id),
      };
    },
  };
}
