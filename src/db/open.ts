/**
 * The stores' database: a SQLite file (better-sqlite3) or the fleet's PostgreSQL database
 * (postgres/database.ts), behind the same synchronous interface.
 */
import { dirname } from 'node:path';

import Database from 'better-sqlite3';

import { AppError } from '../errors.js';
import { makeDir } from '../make-dir.js';
import type { Db, Statement } from './engine.js';
import { PostgresDb } from './postgres/database.js';
import { localTextIndex } from './postgres/local-text-index.js';

export {
  type ArgsOf,
  type Db,
  type Engine,
  engineOf,
  type RunResult,
  type Statement,
} from './engine.js';

export interface OpenOptions {
  /** Milliseconds a writer waits for a lock held by another connection. */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

/** Opens (creating the folder if needed) a database file, or `:memory:`. */
export function openDatabase(path: string, opts: OpenOptions = {}): Database.Database {
  if (path !== ':memory:' && !opts.readonly) makeDir(dirname(path));
  let db: Database.Database;
  try {
    db = new Database(path, {
      readonly: opts.readonly ?? false,
      timeout: opts.busyTimeoutMs ?? 5000,
    });
  } catch (cause) {
    throw new AppError('io_failed', `cannot open database ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (!opts.readonly && path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  // Every transaction takes the write lock when it begins (BEGIN IMMEDIATE), waiting up to the
  // busy timeout for it. A deferred one that reads and then writes fails outright
  // (SQLITE_BUSY_SNAPSHOT) when another process (the hook, another instance) committed in
  // between; an immediate one waits its turn, so concurrent writers run one after the other.
  const deferred = db.transaction.bind(db);
  db.transaction = ((fn: Parameters<typeof deferred>[0]) => {
    return deferred(fn).immediate;
  }) as typeof db.transaction;
  return db;
}

/**
 * A file of the store's own beside its SQLite file (`watchkeeper.db-NAME`), such as an index kept
 * on disk; null for an in-memory or PostgreSQL store, which has no folder of its own.
 */
export function fileBeside(db: Db, name: string): string | null {
  if (db instanceof PostgresDb) return null;
  const file = db as unknown as { name?: unknown; memory?: boolean };
  return typeof file.name === 'string' && file.name !== '' && !file.memory
    ? `${file.name}-${name}`
    : null;
}

/**
 * Prepared statements for SQL built from a few filter combinations, prepared once each. The
 * number of distinct texts is small and fixed by the code, so the cache is bounded.
 */
export function statementCache(db: Db): (sql: string) => Statement {
  const statements = new Map<string, Statement>();
  return (sql) => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  };
}

/**
 * Changes whenever the database changes: commits from other connections (`data_version`) or
 * from this one (`total_changes()`). Cheap enough to check on every request.
 */
export function dataVersion(db: Db): () => string {
  if (db instanceof PostgresDb) {
    // Other instances' commits as heard through LISTEN, and this process's own writes at once.
    const feed = db.changes();
    return () => `${feed.version()}.${db.writeTotal()}`;
  }
  const stmt = db.prepare('SELECT total_changes() AS t');
  return () =>
    `${db.pragma('data_version', { simple: true }) as number}.${(stmt.get() as { t: number }).t}`;
}

/**
 * On PostgreSQL, loads this instance's copy of the memories' text (local-text-index.ts) without
 * blocking the event loop, so that the first search or memory write does not wait for it;
 * nothing to do on SQLite, whose index is in the file.
 */
export async function warmTextSearch(db: Db): Promise<void> {
  if (db instanceof PostgresDb) await localTextIndex(db).warm('memories_fts');
}
