/**
 * The stores' database: a SQLite file (better-sqlite3) or the fleet's PostgreSQL database
 * (postgres/database.ts), behind the same synchronous interface.
 */
import { dirname } from 'node:path';

import Database from 'better-sqlite3';

import { AppError } from '../errors.js';
import { makeDir } from '../make-dir.js';
import { PostgresDb } from './postgres/database.js';

export type Engine = 'sqlite' | 'postgres';

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A prepared statement: the part of better-sqlite3's Statement the stores use. */
export interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

/** A function's parameters, spelled as better-sqlite3 spells them (so its Database fits `Db`). */
export type ArgsOf<F> = F extends (...args: infer A) => unknown ? A : never;

/** The part of better-sqlite3's Database the stores use, implemented by both engines. */
export interface Db {
  /** Set on the PostgreSQL engine; absent on a better-sqlite3 database. */
  readonly engine?: 'postgres';
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- better-sqlite3's own constraint
  transaction<F extends (...args: any[]) => unknown>(fn: F): (...args: ArgsOf<F>) => ReturnType<F>;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): unknown;
}

/** Which engine a database runs on. */
export function engineOf(db: Db): Engine {
  return db.engine === 'postgres' ? 'postgres' : 'sqlite';
}

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
