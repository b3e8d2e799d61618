/**
 * The synchronous database interface the stores use: the part of better-sqlite3's Database they
 * need, implemented by both engines (open.ts for SQLite, postgres/database.ts for PostgreSQL).
 */

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
