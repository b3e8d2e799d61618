/**
 * What /metrics reports from the database, read at scrape time: sessions by status and tier,
 * their durations in buckets, cost and tokens per tier, events by level, memories (and how many
 * were created and reinforced), the restarts and redeployments recorded and refused, and
 * notification deliveries by status. Read from the rows, so a restart resets nothing and
 * every process on the same file reports the same; a prune lowers them. Nothing here writes.
 */
import { DELIVERY_STATUSES } from '../notifications/notifications.js';
import { dataVersion, type Db, statementCache } from '../open.js';
import { allAwaited, getAwaited, type Statement } from '../engine.js';
import { SESSION_STATUSES } from '../sessions/sessions.js';

const TIERS = [1, 2, 3] as const;
const EVENT_LEVELS = ['info', 'warning', 'critical'] as const;
const GUARDED_ACTIONS = ['restart', 'redeployment'] as const;
/** The history actions counted: a memory first observed, and one observed again. */
const MEMORY_CHANGES = ['created', 'reinforced'] as const;
/** The usage keys of the CLI's result line, by the name /metrics gives them. */
const TOKEN_KINDS = {
  input: 'input_tokens',
  output: 'output_tokens',
  cache_read: 'cache_read_input_tokens',
  cache_write: 'cache_creation_input_tokens',
} as const;

export interface DurationBuckets {
  tier: number;
  /** Sessions at or below each bound, in the order of the bounds asked for. */
  cumulative: number[];
  count: number;
  sumSeconds: number;
}

export interface StoredMetrics {
  /** Every status and tier, 0 included, so that a series never just vanishes. */
  sessions: { status: string; tier: number; count: number }[];
  /** Ended sessions, from start to end. */
  durations: DurationBuckets[];
  costUsd: { tier: number; usd: number }[];
  tokens: { tier: number; kind: keyof typeof TOKEN_KINDS; count: number }[];
  events: { level: string; count: number }[];
  memories: { active: number; inactive: number };
  /** Memories created and reinforced, from their history (a prune drops inactive ones'). */
  memoryChanges: { action: string; count: number }[];
  /** Restarts and redeployments recorded (let through by the guard, or reported by the agent). */
  remediations: { action: string; count: number }[];
  guardRefusals: { action: string; count: number }[];
  /** Deliveries of notifications to their targets; `failed` ones gave up after every retry. */
  notificationDeliveries: { status: string; count: number }[];
}

type Totals = { count: number; usd: number; ended: number; sumMs: number } & Record<string, number>;

export function createMetricsStore(db: Db) {
  const events = db.prepare('SELECT level, COUNT(*) AS count FROM events GROUP BY level');
  const memories = db.prepare(`SELECT COALESCE(SUM(active = 1), 0) AS active,
    COALESCE(SUM(active = 0), 0) AS inactive FROM memories`);
  const memoryChanges = db.prepare(
    `SELECT action, COUNT(*) AS count FROM memory_history
      WHERE action IN (${MEMORY_CHANGES.map((a) => `'${a}'`).join(', ')}) GROUP BY action`,
  );
  const remediations = db.prepare(
    'SELECT action_type AS action, COUNT(*) AS count FROM cooldown_actions GROUP BY action_type',
  );
  const refusals = db.prepare(
    'SELECT action_type AS action, COUNT(*) AS count FROM cooldown_blocks GROUP BY action_type',
  );
  const deliveries = db.prepare(
    'SELECT status, COUNT(*) AS count FROM notification_deliveries GROUP BY status',
  );
  const prepared = statementCache(db);
  // Everything about sessions in one pass over the table (a scrape must stay cheap at 100,000
  // sessions): per status and tier, counts, cost, tokens and the duration buckets. The bounds
  // are numbers of the caller's own, never input: safe to write into the SQL.
  const sessionTotals = (boundsSeconds: readonly number[]) =>
    prepared(`SELECT status, tier, COUNT(*) AS count, COALESCE(SUM(cost_usd), 0) AS usd,
        ${Object.entries(TOKEN_KINDS)
          .map(
            ([kind, key]) =>
              `COALESCE(SUM(CAST(json_extract(u, '$.${key}') AS REAL)), 0) AS ${kind}`,
          )
          .join(', ')},
        COUNT(d) AS ended, COALESCE(SUM(d), 0) AS sumMs
        ${boundsSeconds.map((b, i) => `, SUM(d <= ${Math.round(b * 1000)}) AS b${i}`).join('')}
      FROM (SELECT status, tier, cost_usd,
          CASE WHEN json_valid(usage_json) THEN usage_json END AS u,
          CASE WHEN ended_at IS NOT NULL THEN MAX(ended_at - started_at, 0) END AS d
        FROM sessions) s
      GROUP BY status, tier`);

  const countsBy = async <K extends string>(stmt: Statement, key: K) =>
    new Map(
      ((await allAwaited(stmt)) as (Record<K, string> & { count: number })[]).map((r) => [
        r[key],
        r.count,
      ]),
    );

  // A scrape every few seconds reads the sessions table once per change of the database, not
  // once per scrape: between runs nothing changes. A failed read is not kept.
  const version = dataVersion(db);
  let last: { key: string; value: Promise<StoredMetrics> } | null = null;

  return {
    /**
     * Everything at once; `durationBoundsSeconds` are the histogram's bucket bounds. Awaited, the
     * statements side by side: a scrape every few seconds must not stop the event loop for
     * seven round trips to a PostgreSQL on another host.
     */
    read(durationBoundsSeconds: readonly number[]): Promise<StoredMetrics> {
      const key = `${version()}/${durationBoundsSeconds.join(',')}`;
      if (last?.key !== key) {
        const value = readAll(durationBoundsSeconds);
        last = { key, value };
        value.catch(() => {
          if (last?.value === value) last = null;
        });
      }
      return last.value;
    },
  };

  async function readAll(durationBoundsSeconds: readonly number[]): Promise<StoredMetrics> {
    const [rows, levels, remediated, refused, delivered, changed, counts] = await Promise.all([
      allAwaited(sessionTotals(durationBoundsSeconds)) as Promise<
        (Totals & { status: string; tier: number })[]
      >,
      countsBy(events, 'level'),
      countsBy(remediations, 'action'),
      countsBy(refusals, 'action'),
      countsBy(deliveries, 'status'),
      countsBy(memoryChanges, 'action'),
      getAwaited(memories) as Promise<{ active: number; inactive: number }>,
    ]);
    const counted = new Map(rows.map((r) => [`${r.status}/${r.tier}`, r.count]));
    const ofTier = (tier: number, pick: (r: Totals) => number) =>
      rows.filter((r) => r.tier === tier).reduce((sum, r) => sum + pick(r), 0);
    return {
      sessions: SESSION_STATUSES.flatMap((status) =>
        TIERS.map((tier) => ({ status, tier, count: counted.get(`${status}/${tier}`) ?? 0 })),
      ),
      durations: TIERS.map((tier) => ({
        tier,
        cumulative: durationBoundsSeconds.map((_, i) => ofTier(tier, (r) => r[`b${i}`] ?? 0)),
        count: ofTier(tier, (r) => r.ended),
        sumSeconds: ofTier(tier, (r) => r.sumMs) / 1000,
      })),
      costUsd: TIERS.map((tier) => ({ tier, usd: ofTier(tier, (r) => r.usd) })),
      tokens: TIERS.flatMap((tier) =>
        (Object.keys(TOKEN_KINDS) as (keyof typeof TOKEN_KINDS)[]).map((kind) => ({
          tier,
          kind,
          count: ofTier(tier, (r) => r[kind] ?? 0),
        })),
      ),
      events: EVENT_LEVELS.map((level) => ({ level, count: levels.get(level) ?? 0 })),
      memories: counts,
      memoryChanges: MEMORY_CHANGES.map((action) => ({ action, count: changed.get(action) ?? 0 })),
      remediations: GUARDED_ACTIONS.map((action) => ({
        action,
        count: remediated.get(action) ?? 0,
      })),
      guardRefusals: GUARDED_ACTIONS.map((action) => ({
        action,
        count: refused.get(action) ?? 0,
      })),
      notificationDeliveries: DELIVERY_STATUSES.map((status) => ({
        status,
        count: delivered.get(status) ?? 0,
      })),
    };
  }
}

export type MetricsStore = ReturnType<typeof createMetricsStore>;
