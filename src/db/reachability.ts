/**
 * Whether the store's database can be reached, for callers that must not block on it: the
 * dashboard's banner (what the change feed last heard, answered at once) and the runner's retry
 * of held markers (a short connection attempt on its own client, awaited, never the synchronous
 * bridge's wait). A SQLite file is always reachable. An error that means the database is out of
 * reach (not that a statement is wrong) is told apart by `isUnreachableError`.
 */

import { isAppError } from '../errors.js';
import type { Db } from './open.js';
import { isConnectionLoss, PostgresDb } from './postgres/database.js';

export { saysUnreachable } from './postgres/database.js';
import { redactUrl } from './postgres/url.js';

/** How long the retry path's connection attempt may take. */
export const PROBE_TIMEOUT_MS = 1_000;

/** The database's address as it may be shown (password hidden); null for a SQLite file. */
export function databaseLabel(db: Db): string | null {
  return db instanceof PostgresDb ? redactUrl(db.url) : null;
}

/** How long the change feed's first connection may take (its connect timeout, and a margin). */
const FIRST_CONNECT_MS = 6_000;
const asked = new WeakMap<Db, { since: number; up: boolean }>();

/**
 * False while the shared database's change feed is disconnected (it reconnects on its own, with
 * a growing pause); true for a SQLite file. Never blocks: the first call starts the feed.
 */
export function databaseReachable(db: Db, now = Date.now()): boolean {
  if (!(db instanceof PostgresDb)) return true;
  const up = db.changes().reachable();
  let seen = asked.get(db);
  if (!seen) {
    seen = { since: now, up: false };
    asked.set(db, seen);
  }
  if (up) seen.up = true;
  // Before the feed's first connection is made (or has failed), nothing is known: no alarm.
  return up || (!seen.up && now - seen.since < FIRST_CONNECT_MS);
}

/**
 * One connection attempt and `SELECT 1` within `timeoutMs`, without touching the store's pool:
 * true when the database answers. Always true for a SQLite file.
 */
export async function probeDatabase(db: Db, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  if (!(db instanceof PostgresDb)) return true;
  // pg is loaded when a PostgreSQL store is probed: a SQLite command never needs it.
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: db.url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'watchkeeper (probe)',
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** True for an error that means the database could not be reached (try again later). */
export function isUnreachableError(err: unknown): boolean {
  if (isAppError(err)) return err.code === 'db_unavailable';
  return isConnectionLoss(err);
}
