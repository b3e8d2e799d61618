/** Opens the SQLite file with the pragmas every connection needs. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import Database from 'better-sqlite3';

import { AppError } from '../errors.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** Milliseconds a writer waits for a lock held by another connection. */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

/** Opens (creating the folder if needed) a database file, or `:memory:`. */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  if (path !== ':memory:' && !opts.readonly) mkdirSync(dirname(path), { recursive: true });
  let db: Db;
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
  return db;
}

/**
 * Prepared statements for SQL built from a few filter combinations, prepared once each. The
 * number of distinct texts is small and fixed by the code, so the cache is bounded.
 */
export function statementCache(db: Db): (sql: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>();
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
  const stmt = db.prepare('SELECT total_changes() AS t');
  return () =>
    `${db.pragma('data_version', { simple: true }) as number}.${(stmt.get() as { t: number }).t}`;
}
