/**
 * A session's life in the sessions table: started, identified, kept alive by heartbeats, finished,
 * or interrupted by the start-up sweep or when its instance's lease runs out.
 */
import { allAwaited, type Db, runAwaited } from '../engine.js';
import type { ExpiredLease, RunningSession, SessionFinish, SessionStart } from './session-types.js';

/** What the lease sweep writes on a session whose instance stopped beating. */
export function leaseExpiredError(instance: string, expiredAt: number): string {
  return (
    `interrupted: instance ${instance} stopped sending heartbeats; ` +
    `lease expired at ${new Date(expiredAt).toISOString()}`
  );
}

/** `instance`: this sidecar's name, written on the sessions it starts and used to find its own. */
export function sessionLifecycle(db: Db, instance: string) {
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
  const byLogPath = db.prepare(
    'SELECT id FROM sessions WHERE log_path = ? AND instance = ? ORDER BY id LIMIT 1',
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

  const row = (input: SessionStart) => ({
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

  return {
    start(input: SessionStart): number {
      return Number(insert.run(row(input)).lastInsertRowid);
    },
    /** The same, awaited (a session the runner starts, from serve's event loop). */
    async startAwaited(input: SessionStart): Promise<number> {
      return Number((await runAwaited(insert, row(input))).lastInsertRowid);
    },
    /** Awaited, as the rest of a running session's own writes. */
    async setLogPath(id: number, logPath: string): Promise<void> {
      await runAwaited(setLogPath, logPath, id);
    },
    /** This instance's session whose log is `logPath` (as recorded: relative to the data folder). */
    idByLogPath(logPath: string): number | null {
      const row = byLogPath.get(logPath, instance) as { id: number } | undefined;
      return row ? Number(row.id) : null;
    },
    /** Records the process group the CLI was spawned in, so a later start-up can end it. */
    async setPgid(id: number, pgid: number): Promise<void> {
      await runAwaited(setPgid, pgid, id);
    },
    /**
     * This instance's sessions still marked `running` (only one runner per instance holds the
     * lock, so at start-up: orphans). Other instances' sessions are theirs, or the lease's.
     */
    running(): RunningSession[] {
      return running.all(instance) as RunningSession[];
    },
    /**
     * This instance's running session is alive at `at`; false when it is no longer running.
     * Awaited: a running session beats every quarter of its lease, from serve's event loop.
     */
    async heartbeat(id: number, at: number): Promise<boolean> {
      return (await runAwaited(beat, at, id, instance)).changes === 1;
    },
    /**
     * Marks `interrupted` every running session, of any instance, whose last heartbeat (or start,
     * when it never beat) is older than `now - leaseMs`. Returns the sessions this call ended:
     * one a concurrent sweep or a late heartbeat got to first is not among them.
     */
    async expireLeases(now: number, leaseMs: number): Promise<ExpiredLease[]> {
      const cutoff = now - leaseMs;
      const found = (await allAwaited(stale, cutoff)) as {
        id: number;
        instance: string;
        lastBeatAt: number;
      }[];
      const out: ExpiredLease[] = [];
      for (const row of found) {
        const expiredAt = row.lastBeatAt + leaseMs;
        const error = leaseExpiredError(row.instance, expiredAt);
        if ((await runAwaited(expire, now, error, row.id, cutoff)).changes !== 1) continue;
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
    /** The same, awaited (the Sessions list's filter). */
    async instancesAwaited(limit = 100): Promise<string[]> {
      return ((await allAwaited(instances, limit)) as { name: string }[]).map((r) => r.name);
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
    /** The same, awaited (a live session's, from serve's event loop). */
    async identifyAwaited(id: number, cliSessionId: string | null, model: string | null) {
      await runAwaited(setCli, cliSessionId, model, id);
    },
    finish(id: number, f: SessionFinish): void {
      finish.run(finished(id, f));
    },
    /** The same, awaited (the runner's own sessions, from serve's event loop). */
    async finishAwaited(id: number, f: SessionFinish): Promise<void> {
      await runAwaited(finish, finished(id, f));
    },
  };
}

/** A finished session's row values, as the UPDATE names them. */
function finished(id: number, f: SessionFinish) {
  return {
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
  };
}
