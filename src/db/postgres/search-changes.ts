/**
 * The statements of the full-text change feed on PostgreSQL (search_changes, stamped by triggers
 * with each change's transaction id): where a reader's next read starts, what changed since its
 * cursor, where it records that cursor, and the prune that deletes what every reader has read.
 * The local full-text copies (local-text-index.ts) read them; retention prunes.
 */
import type { PostgresDb } from './database.js';

/** A reader not seen for this long is gone: its cursor no longer holds changes back. */
const READER_GONE_MS = 86_400_000;

/**
 * The oldest transaction still running in this database (xid8): pg_snapshot_xmin of the current
 * snapshot, leaving out transactions of other databases on the same server, which cannot write
 * this database's search_changes. A long transaction of another application on a shared server
 * would otherwise hold every reader's cursor and every prune back for as long as it runs. Only
 * what pg_stat_activity shows to be another database's is left out: a transaction it does not
 * show yet (or hides from this role) still counts.
 */
const OLDEST_HERE = `(SELECT coalesce(min(x.xid), min(pg_snapshot_xmax(s.snap)))
    FROM (SELECT pg_current_snapshot() AS snap) s
    LEFT JOIN LATERAL pg_snapshot_xip(s.snap) AS x(xid)
      ON (x.xid::text::numeric % 4294967296) NOT IN (
        SELECT a.backend_xid::text::numeric FROM pg_stat_activity a
        WHERE a.backend_xid IS NOT NULL AND a.datname IS DISTINCT FROM current_database()))`;

/**
 * The oldest transaction still running (the cursor of the next read) and this statement's own
 * transaction, if it wrote: its rows are stamped with its id, which may be older than the oldest
 * other one.
 */
export const HORIZON = `SELECT LEAST(s.xmin, coalesce(s.own, s.xmin))::text AS horizon, s.own::text AS own
  FROM (SELECT ${OLDEST_HERE} AS xmin,
    pg_current_xact_id_if_assigned() AS own) s`;

/**
 * The rows of one table changed at or after the cursor, as JSON [id, xid, by this transaction],
 * and the transaction below which changes were deleted.
 */
export const CHANGES = `SELECT LEAST(s.xmin, coalesce(s.own, s.xmin))::text AS horizon,
    (SELECT coalesce(json_agg(json_build_array(c.row_id, c.xid::text, c.xid = s.own)), '[]')::text
      FROM search_changes c WHERE c.source = $1 AND c.xid >= $2::xid8) AS changed,
    coalesce((SELECT pruned FROM search_horizon), '0')::text AS pruned
  FROM (SELECT ${OLDEST_HERE} AS xmin,
    pg_current_xact_id_if_assigned() AS own) s`;

export const REPORT = `INSERT INTO search_readers (reader, cursor, seen_at) VALUES ($1, $2::xid8, $3)
  ON CONFLICT (reader) DO UPDATE SET cursor = EXCLUDED.cursor, seen_at = EXCLUDED.seen_at`;

/**
 * Deletes the changes every reader has read, in one statement: readers not seen since
 * READER_GONE_MS before `now` are forgotten; the horizon moves to the oldest cursor of the others
 * (never past a transaction still running); the rows stamped before it go. Returns how many.
 */
export async function pruneSearchChanges(db: PostgresDb, now: number): Promise<number> {
  const answer = await db.callAsync({
    op: 'query',
    text: PRUNE,
    params: [now - READER_GONE_MS],
    mode: 'plain',
  });
  const [row] = answer.rows as { n: number }[];
  return Number(row!.n);
}

const PRUNE = `WITH gone AS (DELETE FROM search_readers WHERE seen_at < $1),
  horizon AS (
    UPDATE search_horizon SET pruned = GREATEST(pruned, LEAST(
      (SELECT min(cursor) FROM search_readers WHERE seen_at >= $1),
      ${OLDEST_HERE}))
    RETURNING pruned),
  removed AS (DELETE FROM search_changes WHERE xid < (SELECT pruned FROM horizon) RETURNING 1)
  SELECT count(*)::int AS n FROM removed`;
