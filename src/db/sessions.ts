/** The sessions table: one row per CLI run (or imported transcript). */
import type { HistoryRow } from './memories.js';
import { type Db, statementCache } from './open.js';
import { type SessionFilter, sessionWhere } from './session-filter.js';

export const SESSION_STATUSES = [
  'running',
  'completed',
  'failed',
  'timed_out',
  'stopped',
  'escalated',
  // watchkeeper stopped (killed, crashed) while the session ran; set at the next start-up
  'interrupted',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const SESSION_TRIGGERS = [
  'scheduled',
  'manual',
  'api',
  'alert',
  'escalation',
  'import',
] as const;
export type SessionTrigger = (typeof SESSION_TRIGGERS)[number];

export interface SessionRow {
  id: number;
  status: SessionStatus;
  trigger: SessionTrigger;
  tier: number;
  model: string | null;
  prompt: string | null;
  parentSessionId: number | null;
  cliSessionId: string | null;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  resultSubtype: string | null;
  isError: boolean | null;
  costUsd: number | null;
  numTurns: number | null;
  durationMs: number | null;
  durationApiMs: number | null;
  usage: Record<string, unknown> | null;
  response: string | null;
  error: string | null;
  logPath: string | null;
  streamStats: Record<string, unknown> | null;
  /** True when the session ran against the simulated model (demo mode, tests). */
  simulated: boolean;
  /** The sidecar that ran it (WATCHKEEPER_INSTANCE); `local` for a lone sidecar. */
  instance: string;
  /** While running: the last time its runner said it was alive (epoch ms); see expireLeases. */
  heartbeatAt: number | null;
}

export interface SessionStart {
  trigger: SessionTrigger;
  tier: number;
  model?: string | null;
  prompt?: string | null;
  parentSessionId?: number | null;
  logPath?: string | null;
  startedAt: number;
  simulated?: boolean;
}

/** A session left `running`, with the process group its CLI was spawned in (null if never spawned). */
export interface RunningSession {
  id: number;
  pgid: number | null;
}

/** A running session whose instance stopped beating, as the lease sweep marked it interrupted. */
export interface ExpiredLease {
  sessionId: number;
  instance: string;
  /** The last heartbeat (its start when it never beat), epoch ms. */
  lastBeatAt: number;
  /** When the lease ran out: lastBeatAt + the lease. */
  expiredAt: number;
  error: string;
}

export interface SessionFinish {
  status: SessionStatus;
  endedAt: number;
  exitCode?: number | null;
  resultSubtype?: string | null;
  isError?: boolean | null;
  costUsd?: number | null;
  numTurns?: number | null;
  durationMs?: number | null;
  durationApiMs?: number | null;
  usage?: Record<string, unknown> | null;
  response?: string | null;
  error?: string | null;
  cliSessionId?: string | null;
  model?: string | null;
  streamStats?: object | null;
}

const COLUMNS = `id, status, trigger, tier, model, prompt, parent_session_id AS parentSessionId,
  cli_session_id AS cliSessionId, started_at AS startedAt, ended_at AS endedAt,
  exit_code AS exitCode, result_subtype AS resultSubtype, is_error AS isError, cost_usd AS costUsd,
  num_turns AS numTurns, duration_ms AS durationMs, duration_api_ms AS durationApiMs,
  usage_json AS usage, response, error, log_path AS logPath, stream_stats_json AS streamStats,
  simulated, instance, heartbeat_at AS heartbeatAt`;

type RawSession = Omit<SessionRow, 'isError' | 'usage' | 'streamStats' | 'simulated'> & {
  isError: number | null;
  simulated: number;
  usage: string | null;
  streamStats: string | null;
};

function fromRaw(raw: RawSession): SessionRow {
  return {
    ...raw,
    isError: raw.isError === null ? null : raw.isError === 1,
    simulated: raw.simulated === 1,
    usage: raw.usage === null ? null : (JSON.parse(raw.usage) as Record<string, unknown>),
    streamStats:
      raw.streamStats === null ? null : (JSON.parse(raw.streamStats) as Record<string, unknown>),
  };
}

/** What the lease sweep writes on a session whose instance stopped beating. */
export function leaseExpiredError(instance: string, expiredAt: number): string {
  return (
    `interrupted: instance ${instance} stopped sending heartbeats; ` +
    `lease expired at ${new Date(expiredAt).toISOString()}`
  );
}

/** `instance`: this sidecar's name, written on the sessions it starts and used to find its own. */
export function createSessionStore(db: Db, instance = 'local') {
  const insert = db.prepare(`INSERT INTO sessions
    (status, trigger, tier, model, prompt, parent_session_id, log_path, started_at, simulated,
    instance, heartbeat_at)
    VALUES ('running', @trigger, @tier, @model, @prompt, @parentSessionId, @logPath, @startedAt,
    @simulated, @instance, @startedAt)`);
  const finish = db.prepare(`UPDATE sessions SET status = @status, ended_at = @endedAt,
    exit_code = @exitCode, result_subtype = @resultSubtype, is_error = @isError, cost_usd = @costUsd,
    num_turns = @numTurns, duration_ms = @durationMs, duration_api_ms = @durationApiMs,
    usage_json = @usage, response = @response, error = @error,
    cli_session_id = COALESCE(@cliSessionId, cli_session_id), model = COALESCE(@model, model),
    stream_stats_json = @streamStats
    WHERE id = @id`);
  const setLogPath = db.prepare('UPDATE sessions SET log_path = ? WHERE id = ?');
  const markEscalated = db.prepare(
    "UPDATE sessions SET status = 'escalated' WHERE id = ? AND status = 'completed'",
  );
  const setCli = db.prepare(
    'UPDATE sessions SET cli_session_id = COALESCE(cli_session_id, ?), model = COALESCE(model, ?) WHERE id = ?',
  );
  const setPgid = db.prepare('UPDATE sessions SET pgid = ? WHERE id = ?');
  const running = db.prepare(
    "SELECT id, pgid FROM sessions WHERE status = 'running' AND instance = ? ORDER BY id",
  );
  const beat = db.prepare(`UPDATE sessions SET heartbeat_at = ?
    WHERE id = ? AND status = 'running' AND instance = ?`);
  // A lease runs from the last heartbeat, or from the start of a session that never beat.
  const stale = db.prepare(`SELECT id, instance, COALESCE(heartbeat_at, started_at) AS lastBeatAt
    FROM sessions WHERE status = 'running' AND COALESCE(heartbeat_at, started_at) < ? ORDER BY id`);
  // The condition is checked again by the UPDATE itself: of two sweepers, or of a sweep and a
  // late heartbeat, only one changes the row.
  const expire = db.prepare(`UPDATE sessions SET status = 'interrupted', ended_at = ?, error = ?
    WHERE id = ? AND status = 'running' AND COALESCE(heartbeat_at, started_at) < ?`);
  const instances = db.prepare(`WITH RECURSIVE i(name) AS (
      SELECT MIN(instance) FROM sessions
      UNION ALL
      SELECT (SELECT MIN(instance) FROM sessions WHERE instance > i.name) FROM i
      WHERE i.name IS NOT NULL
    ) SELECT name FROM i WHERE name IS NOT NULL LIMIT ?`);
  const interrupt = db.prepare(`UPDATE sessions SET status = 'interrupted', ended_at = ?, error = ?
    WHERE id = ? AND status = 'running' AND instance = ?`);
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`);
  const byLogPath = db.prepare(
    'SELECT id FROM sessions WHERE log_path = ? AND instance = ? ORDER BY id LIMIT 1',
  );
  const list = db.prepare(`SELECT ${COLUMNS} FROM sessions ORDER BY id DESC LIMIT ? OFFSET ?`);
  const byCli = db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE cli_session_id = ? ORDER BY id`);
  const countAll = db.prepare('SELECT COUNT(*) AS n FROM sessions');
  const cached = statementCache(db);
  const children = db.prepare(
    `SELECT ${COLUMNS} FROM sessions WHERE parent_session_id = ? ORDER BY id`,
  );
  // Walks the parent links up and down; the depth cap keeps a corrupt cycle from looping.
  const ancestors = db.prepare(`WITH RECURSIVE up(id, depth) AS (
      SELECT parent_session_id, 1 FROM sessions WHERE id = ? AND parent_session_id IS NOT NULL
      UNION ALL
      SELECT s.parent_session_id, up.depth + 1 FROM sessions s JOIN up ON s.id = up.id
      WHERE s.parent_session_id IS NOT NULL AND up.depth < 100)
    SELECT ${COLUMNS} FROM sessions WHERE id IN (SELECT id FROM up) ORDER BY id`);
  const descendants = db.prepare(`WITH RECURSIVE down(id, depth) AS (
      SELECT id, 1 FROM sessions WHERE parent_session_id = ?
      UNION ALL
      SELECT s.id, down.depth + 1 FROM sessions s JOIN down ON s.parent_session_id = down.id
      WHERE down.depth < 100)
    SELECT ${COLUMNS} FROM sessions WHERE id IN (SELECT id FROM down) ORDER BY id`);
  const memoryHistory = db.prepare(`SELECT id, memory_id AS memoryId, action,
    old_confidence AS oldConfidence, new_confidence AS newConfidence, observation,
    session_id AS sessionId, created_at AS createdAt
    FROM memory_history WHERE session_id = ? ORDER BY created_at, id`);
  const createdMemories = db.prepare('SELECT id FROM memories WHERE session_id = ? ORDER BY id');

  return {
    start(input: SessionStart): number {
      const info = insert.run({
        trigger: input.trigger,
        tier: input.tier,
        model: input.model ?? null,
        prompt: input.prompt ?? null,
        parentSessionId: input.parentSessionId ?? null,
        logPath: input.logPath ?? null,
        startedAt: input.startedAt,
        simulated: input.simulated ? 1 : 0,
        instance,
      });
      return Number(info.lastInsertRowid);
    },
    setLogPath(id: number, logPath: string): void {
      setLogPath.run(logPath, id);
    },
    /** This instance's session whose log is `logPath` (as recorded: relative to the data folder). */
    idByLogPath(logPath: string): number | null {
      const row = byLogPath.get(logPath, instance) as { id: number } | undefined;
      return row ? Number(row.id) : null;
    },
    /** Records the process group the CLI was spawned in, so a later start-up can end it. */
    setPgid(id: number, pgid: number): void {
      setPgid.run(pgid, id);
    },
    /**
     * This instance's sessions still marked `running` (only one runner per instance holds the
     * lock, so at start-up: orphans). Other instances' sessions are theirs, or the lease's.
     */
    running(): RunningSession[] {
      return running.all(instance) as RunningSession[];
    },
    /** This instance's running session is alive at `at`; false when it is no longer running. */
    heartbeat(id: number, at: number): boolean {
      return beat.run(at, id, instance).changes === 1;
    },
    /**
     * Marks `interrupted` every running session, of any instance, whose last heartbeat (or start,
     * when it never beat) is older than `now - leaseMs`. Returns the sessions this call ended:
     * one a concurrent sweep or a late heartbeat got to first is not among them.
     */
    expireLeases(now: number, leaseMs: number): ExpiredLease[] {
      const cutoff = now - leaseMs;
      const found = stale.all(cutoff) as { id: number; instance: string; lastBeatAt: number }[];
      const out: ExpiredLease[] = [];
      for (const row of found) {
        const expiredAt = row.lastBeatAt + leaseMs;
        const error = leaseExpiredError(row.instance, expiredAt);
        if (expire.run(now, error, row.id, cutoff).changes !== 1) continue;
        out.push({
          sessionId: row.id,
          instance: row.instance,
          lastBeatAt: row.lastBeatAt,
          expiredAt,
          error,
        });
      }
      return out;
    },
    /** The instances that have sessions, by name (at most `limit`). */
    instances(limit = 100): string[] {
      return (instances.all(limit) as { name: string }[]).map((r) => r.name);
    },
    /**
     * Ends this instance's session found `running` at start-up; false when it was no longer
     * running or belongs to another instance.
     */
    markInterrupted(id: number, endedAt: number, error: string): boolean {
      return interrupt.run(endedAt, error, id, instance).changes === 1;
    },
    /** A completed session whose agent asked for the next tier, which is now running. */
    markEscalated(id: number): void {
      markEscalated.run(id);
    },
    /** Records the CLI's own session id and model as soon as the stream reveals them. */
    identify(id: number, cliSessionId: string | null, model: string | null): void {
      setCli.run(cliSessionId, model, id);
    },
    finish(id: number, f: SessionFinish): void {
      finish.run({
        id,
        status: f.status,
        endedAt: f.endedAt,
        exitCode: f.exitCode ?? null,
        resultSubtype: f.resultSubtype ?? null,
        isError: f.isError === undefined || f.isError === null ? null : f.isError ? 1 : 0,
        costUsd: f.costUsd ?? null,
        numTurns: f.numTurns ?? null,
        durationMs: f.durationMs ?? null,
        durationApiMs: f.durationApiMs ?? null,
        usage: f.usage ? JSON.stringify(f.usage) : null,
        response: f.response ?? null,
        error: f.error ?? null,
        cliSessionId: f.cliSessionId ?? null,
        model: f.model ?? null,
        streamStats: f.streamStats ? JSON.stringify(f.streamStats) : null,
      });
    },
    get(id: number): SessionRow | null {
      const raw = getOne.get(id) as RawSession | undefined;
      return raw ? fromRaw(raw) : null;
    },
    list(opts: { limit?: number; offset?: number; filter?: SessionFilter } = {}): SessionRow[] {
      if (opts.filter) {
        const { where, params } = sessionWhere(opts.filter);
        const sql = `SELECT ${COLUMNS} FROM sessions ${where} ORDER BY id DESC LIMIT ? OFFSET ?`;
        const rows = cached(sql).all(...params, opts.limit ?? 50, opts.offset ?? 0);
        return (rows as RawSession[]).map(fromRaw);
      }
      return (list.all(opts.limit ?? 50, opts.offset ?? 0) as RawSession[]).map(fromRaw);
    },
    byCliSessionId(cliSessionId: string): SessionRow[] {
      return (byCli.all(cliSessionId) as RawSession[]).map(fromRaw);
    },
    count(filter?: SessionFilter): number {
      if (filter) {
        const { where, params } = sessionWhere(filter);
        return (
          cached(`SELECT COUNT(*) AS n FROM sessions ${where}`).get(...params) as { n: number }
        ).n;
      }
      return (countAll.get() as { n: number }).n;
    },
    /** Sessions started by this one (its escalations), oldest first. */
    children(id: number): SessionRow[] {
      return (children.all(id) as RawSession[]).map(fromRaw);
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
      return (ancestors.all(id) as RawSession[]).map(fromRaw);
    },
    /** Every session below this one in its chain (children, theirs, ...), by id. */
    descendants(id: number): SessionRow[] {
      return (descendants.all(id) as RawSession[]).map(fromRaw);
    },
    /**
     * What a session did to memories: the memory_history entries it wrote, and the ids of the
     * memories whose row names it as their creator (an entry may be missing for those).
     */
    memoryActivity(id: number): { history: HistoryRow[]; createdIds: number[] } {
      return {
        history: memoryHistory.all(id) as HistoryRow[],
        createdIds: (createdMemories.all(id) as { id: number }[]).map((r) => r.id),
      };
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
