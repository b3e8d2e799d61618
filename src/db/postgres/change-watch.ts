/**
 * Whether a table may have changed since a cache last read it: on PostgreSQL, when another
 * instance's change was heard (change-feed.ts), when this process wrote it, or while the feed is
 * down; on SQLite always (reading a table's new rows there costs less than asking).
 */
import type { Db } from '../engine.js';
import { PostgresDb } from './database.js';

/**
 * A watch of tables: each call answers whether any may have changed since the previous call
 * that answered true (the first call answers true).
 */
export function tableWatch(db: Db, ...tables: string[]): () => boolean {
  if (!(db instanceof PostgresDb)) return () => true;
  const feed = db.changes();
  let seen: string | null = null;
  return () => {
    const now = tables.map((t) => `${feed.tableVersion(t)}.${db.writeCount(t)}`).join(' ');
    if (feed.reachable() && now === seen) return false;
    seen = now;
    return true;
  };
}
