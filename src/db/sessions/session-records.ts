/**
 * What each session got and did, beside its row: the exact appended system prompt, the chain's
 * summary (kept on the chain's first session), the services it checked with their health, and
 * the token counts read from its result line's usage.
 */
import { allAwaited, getAwaited, runAwaited, writeAwaited } from '../engine.js';
import type { Db } from '../open.js';

export const HEALTH_STATES = ['healthy', 'degraded', 'down', 'unreachable'] as const;
export type Health = (typeof HEALTH_STATES)[number];
export type SummarySource = 'model' | 'final_response';
export type SummaryStatus = 'pending' | 'done' | 'failed';
/** Where a summary written elsewhere came from (null: watchkeeper wrote it). */
export type SummaryOrigin = 'claudeops';

export interface SessionSummary {
  sessionId: number;
  text: string | null;
  source: SummarySource | null;
  status: SummaryStatus | null;
  error: string | null;
  jobId: number | null;
  at: number | null;
  /** Read back from the row; watchkeeper's own summaries clear it. */
  origin?: SummaryOrigin | null;
}

export interface ServiceCheck {
  service: string;
  health: Health;
  detail: string | null;
  source: 'marker' | 'response';
}

export interface ServiceCheckRow extends ServiceCheck {
  id: number;
  sessionId: number;
  createdAt: number;
}

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Token counts of a result line's `usage`; null when the session reported none. */
export function tokensOf(usage: Record<string, unknown> | null): TokenCounts | null {
  if (!usage) return null;
  return {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheRead: num(usage.cache_read_input_tokens),
    cacheWrite: num(usage.cache_creation_input_tokens),
  };
}

/** The sum of the known counts; null when none is known. */
export function sumTokens(all: readonly (TokenCounts | null)[]): TokenCounts | null {
  const known = all.filter((t): t is TokenCounts => t !== null);
  if (known.length === 0) return null;
  return known.reduce((a, b) => ({
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  }));
}

const SUMMARY_COLUMNS = `id AS sessionId, summary AS text, summary_source AS source,
  summary_status AS status, summary_error AS error, summary_job_id AS jobId, summary_at AS at,
  summary_origin AS origin`;
const CHECK_COLUMNS = `id, session_id AS sessionId, service, health, detail, source,
  created_at AS createdAt`;

export function createSessionRecordStore(db: Db, instance = 'local') {
  const setPrompt = db.prepare('UPDATE sessions SET system_prompt = ? WHERE id = ?');
  const getPrompt = db.prepare('SELECT system_prompt AS p FROM sessions WHERE id = ?');
  const pending = db.prepare(`UPDATE sessions SET summary_status = 'pending', summary_error = NULL,
    summary_at = ? WHERE id = ?`);
  const setSummary = db.prepare(`UPDATE sessions SET summary = @text, summary_source = @source,
    summary_status = @status, summary_error = @error, summary_job_id = @jobId, summary_at = @at,
    summary_origin = NULL WHERE id = @sessionId`);
  const abandon = db.prepare(`UPDATE sessions SET summary_status = 'failed', summary_error = ?,
    summary_at = ? WHERE summary_status = 'pending' AND instance = ?`);
  const getSummary = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM sessions WHERE id = ?`);
  const insertCheck = db.prepare(`INSERT INTO service_checks
    (session_id, service, health, detail, source, created_at) VALUES (?, ?, ?, ?, ?, ?)`);
  const checksOf = db.prepare(
    `SELECT ${CHECK_COLUMNS} FROM service_checks WHERE session_id = ? ORDER BY id`,
  );
  // The newest check of each service (the highest id among its newest).
  const latest = db.prepare(`SELECT ${CHECK_COLUMNS} FROM service_checks c
    WHERE c.id = (SELECT id FROM service_checks x WHERE x.service = c.service
      ORDER BY x.created_at DESC, x.id DESC LIMIT 1)
    ORDER BY c.service`);
  // One look into the service's index per name.
  const latestOfServices = db.prepare(`SELECT ${CHECK_COLUMNS} FROM service_checks WHERE id IN
    (SELECT (SELECT x.id FROM service_checks x WHERE x.service = j.value
      ORDER BY x.created_at DESC, x.id DESC LIMIT 1) FROM json_each(?) j)`);
  const latestOne = db.prepare(`SELECT ${CHECK_COLUMNS} FROM service_checks WHERE service = ?
    ORDER BY created_at DESC, id DESC LIMIT ?`);

  return {
    /** Stores the exact text appended to the session's system prompt. */
    setSystemPrompt(sessionId: number, text: string): void {
      setPrompt.run(text, sessionId);
    },
    systemPrompt(sessionId: number): string | null {
      return (getPrompt.get(sessionId) as { p: string | null } | undefined)?.p ?? null;
    },
    async systemPromptAwaited(sessionId: number): Promise<string | null> {
      return (
        ((await getAwaited(getPrompt, sessionId)) as { p: string | null } | undefined)?.p ?? null
      );
    },
    /** The chain's summary is being written (in the background). */
    async summaryPendingAwaited(rootId: number, at: number): Promise<void> {
      await runAwaited(pending, at, rootId);
    },
    /**
     * Summaries a killed predecessor left pending on this instance's sessions will never be
     * written (another instance's may still be); returns how many.
     */
    abandonPending(at: number): number {
      const error = 'watchkeeper stopped while the summary was being written';
      return abandon.run(error, at, instance).changes;
    },
    async setSummaryAwaited(s: SessionSummary): Promise<void> {
      const { origin: _origin, ...row } = s;
      await runAwaited(setSummary, row);
    },
    summary(sessionId: number): SessionSummary | null {
      return (getSummary.get(sessionId) as SessionSummary | undefined) ?? null;
    },
    async summaryAwaited(sessionId: number): Promise<SessionSummary | null> {
      return ((await getAwaited(getSummary, sessionId)) as SessionSummary | undefined) ?? null;
    },
    /**
     * The summaries of these sessions (the ones that have one or are writing it), awaited: the
     * Sessions list.
     */
    async summariesAwaited(ids: readonly number[]): Promise<Map<number, SessionSummary>> {
      const out = new Map<number, SessionSummary>();
      if (ids.length === 0) return out;
      const stmt = db.prepare(
        `SELECT ${SUMMARY_COLUMNS} FROM sessions WHERE summary_status IS NOT NULL
          AND id IN (${ids.map(() => '?').join(', ')})`,
      );
      const rows = (await allAwaited(stmt, ...ids)) as SessionSummary[];
      for (const r of rows) out.set(r.sessionId, r);
      return out;
    },
    /** A session's health checks, in one awaited transaction. */
    async recordChecks(sessionId: number, checks: readonly ServiceCheck[], at: number) {
      await writeAwaited(
        db,
        checks.map((c) => ({
          stmt: insertCheck,
          params: [sessionId, c.service, c.health, c.detail, c.source, at],
        })),
      );
    },
    checks(sessionId: number): ServiceCheckRow[] {
      return checksOf.all(sessionId) as ServiceCheckRow[];
    },
    async checksAwaited(sessionId: number): Promise<ServiceCheckRow[]> {
      return (await allAwaited(checksOf, sessionId)) as ServiceCheckRow[];
    },
    /** The latest health of every service any session checked, by service name. */
    async latestHealth(): Promise<ServiceCheckRow[]> {
      return (await allAwaited(latest)) as ServiceCheckRow[];
    },
    /** The latest check of each of these services that has one, read awaited. */
    async latestHealthOf(services: readonly string[]): Promise<ServiceCheckRow[]> {
      if (services.length === 0) return [];
      return (await allAwaited(latestOfServices, JSON.stringify(services))) as ServiceCheckRow[];
    },

    /** One service's latest checks, newest first. */
    async healthOf(service: string, limit = 20): Promise<ServiceCheckRow[]> {
      return (await allAwaited(latestOne, service, limit)) as ServiceCheckRow[];
    },
  };
}

export type SessionRecordStore = ReturnType<typeof createSessionRecordStore>;
