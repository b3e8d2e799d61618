/**
 * The model gateway's job records: one row per job, written when it starts and when it ends, by
 * the instance that runs it (instances sharing a database each give up only their own leftovers).
 */
import { allAwaited, getAwaited, runAwaited } from '../engine.js';
import { type Db, statementCache } from '../open.js';

export const JOB_OUTCOMES = [
  'running',
  'ok',
  'failed',
  'invalid_output',
  'timed_out',
  'unavailable',
] as const;
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

export interface GatewayJobRow {
  id: number;
  kind: string;
  backend: string;
  model: string | null;
  outcome: JobOutcome;
  /** What the job was for ("conversation c42 summary #3"). */
  ref: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  durationMs: number | null;
  attempts: number;
  error: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export interface JobFinish {
  outcome: Exclude<JobOutcome, 'running'>;
  /** The model that answered (as the backend reported it), or the one asked for. */
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Null when the backend reports no cost and the model's price is unknown (Ollama: free). */
  costUsd: number | null;
  durationMs: number;
  attempts: number;
  error: string | null;
  at: number;
}

export interface JobFilter {
  kind?: string;
  outcome?: JobOutcome;
  limit?: number;
  offset?: number;
}

export interface DayCost {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  jobs: number;
  failed: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

const COLUMNS = `id, kind, backend, model, outcome, ref, input_tokens AS inputTokens,
  output_tokens AS outputTokens, cost_usd AS costUsd, duration_ms AS durationMs, attempts, error,
  created_at AS createdAt, finished_at AS finishedAt`;

function whereOf(f: JobFilter): { sql: string; params: string[] } {
  const where: string[] = [];
  const params: string[] = [];
  if (f.kind) {
    where.push('kind = ?');
    params.push(f.kind);
  }
  if (f.outcome) {
    where.push('outcome = ?');
    params.push(f.outcome);
  }
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

/** Dollars spent: by this instance's jobs, and by every instance's. */
export interface Spending {
  own: number;
  fleet: number;
}

export function createGatewayJobStore(db: Db, instance = 'local') {
  const cached = statementCache(db);
  const insert = db.prepare(`INSERT INTO gateway_jobs
    (kind, backend, model, ref, created_at, instance) VALUES (?, ?, ?, ?, ?, ?)`);
  const finish = db.prepare(`UPDATE gateway_jobs SET outcome = @outcome,
    model = COALESCE(@model, model), input_tokens = @inputTokens, output_tokens = @outputTokens,
    cost_usd = @costUsd, duration_ms = @durationMs, attempts = @attempts, error = @error,
    finished_at = @at WHERE id = @id`);
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM gateway_jobs WHERE id = ?`);
  // Both budgets' spending at once: this instance's jobs and every instance's.
  const spending = db.prepare(`SELECT coalesce(sum(cost_usd), 0) AS fleet,
    coalesce(sum(CASE WHEN instance = ? THEN cost_usd END), 0) AS own
    FROM gateway_jobs WHERE created_at >= ?`);
  const perDay = db.prepare(`SELECT strftime('%Y-%m-%d', created_at / 1000, 'unixepoch') AS day,
    COUNT(*) AS jobs, SUM(outcome NOT IN ('ok', 'running')) AS failed,
    coalesce(sum(cost_usd), 0) AS costUsd, coalesce(sum(input_tokens), 0) AS inputTokens,
    coalesce(sum(output_tokens), 0) AS outputTokens
    FROM gateway_jobs WHERE created_at >= ? GROUP BY day ORDER BY day DESC`);
  const abandon = db.prepare(`UPDATE gateway_jobs SET outcome = 'failed',
    error = 'watchkeeper stopped while the job ran', finished_at = ?
    WHERE outcome = 'running' AND instance = ?`);

  return {
    /** A job's row when it starts and when it ends, awaited (jobs run from serve's event loop). */
    async start(
      kind: string,
      backend: string,
      model: string | null,
      ref: string | null,
      at: number,
    ): Promise<number> {
      return Number(
        (await runAwaited(insert, kind, backend, model, ref, at, instance)).lastInsertRowid,
      );
    },

    async finish(id: number, f: JobFinish): Promise<void> {
      await runAwaited(finish, { id, ...f });
    },

    get(id: number): GatewayJobRow | null {
      return (getOne.get(id) as GatewayJobRow | undefined) ?? null;
    },

    /** Jobs, newest first (awaited, as the count). */
    async list(filter: JobFilter = {}): Promise<GatewayJobRow[]> {
      const { sql, params } = whereOf(filter);
      const stmt = cached(
        `SELECT ${COLUMNS} FROM gateway_jobs ${sql} ORDER BY id DESC LIMIT ? OFFSET ?`,
      );
      return (await allAwaited(
        stmt,
        ...params,
        filter.limit ?? 100,
        filter.offset ?? 0,
      )) as GatewayJobRow[];
    },

    async count(filter: JobFilter = {}): Promise<number> {
      const { sql, params } = whereOf(filter);
      const stmt = cached(`SELECT COUNT(*) AS n FROM gateway_jobs ${sql}`);
      return ((await getAwaited(stmt, ...params)) as { n: number }).n;
    },

    /** Dollars spent by this instance's jobs and by every instance's, created at or after `since`. */
    spendingSince(since: number): Spending {
      return spending.get(instance, since) as Spending;
    },

    /** The same, awaited (the dashboard's and the API's reads). */
    async spendingSinceAwaited(since: number): Promise<Spending> {
      return (await getAwaited(spending, instance, since)) as Spending;
    },

    /** Jobs and cost per UTC day since `since`, newest day first (awaited). */
    async perDay(since: number): Promise<DayCost[]> {
      return (await allAwaited(perDay, since)) as DayCost[];
    },

    /** Jobs a killed process of this instance left running: failed, at start-up. */
    async abandonRunning(at: number): Promise<number> {
      return (await runAwaited(abandon, at, instance)).changes;
    },
  };
}

export type GatewayJobStore = ReturnType<typeof createGatewayJobStore>;
