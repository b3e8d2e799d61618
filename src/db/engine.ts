/**
 * The synchronous database interface the stores use: the part of better-sqlite3's Database they
 * need, implemented by both engines (open.ts for SQLite, postgres/database.ts for PostgreSQL).
 */
import { setTimeout } from 'node:timers/promises';

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

/** The awaited forms a PostgreSQL statement adds (postgres/database.ts). */
interface AwaitedStatement extends Statement {
  allAsync(...params: unknown[]): Promise<unknown[]>;
  getAsync(...params: unknown[]): Promise<unknown>;
  runAsync(...params: unknown[]): Promise<RunResult>;
}

const awaitable = (stmt: Statement): stmt is AwaitedStatement => 'allAsync' in stmt;

/**
 * A statement's answer, awaited. On PostgreSQL the event loop goes on while the server answers;
 * the statement runs on a connection of its own, outside any transaction open on the synchronous
 * side, so it sees committed rows only (as another instance would). On SQLite it runs at once: a
 * local file answers within the same turn. For the paths that serve requests and the stream, which
 * must not wait on the network (reads of a page, a session's row writes).
 */
export const allAwaited = (stmt: Statement, ...params: unknown[]): Promise<unknown[]> =>
  awaitable(stmt) ? stmt.allAsync(...params) : new Promise((ok) => ok(stmt.all(...params)));

export const getAwaited = (stmt: Statement, ...params: unknown[]): Promise<unknown> =>
  awaitable(stmt) ? stmt.getAsync(...params) : new Promise((ok) => ok(stmt.get(...params)));

export const runAwaited = (stmt: Statement, ...params: unknown[]): Promise<RunResult> =>
  awaitable(stmt) ? stmt.runAsync(...params) : new Promise((ok) => ok(stmt.run(...params)));

/**
 * One statement of a write that runs as one transaction (`writeNow`, `writeAwaited`). A
 * parameter `insertedId(i)` is the id statement i of the same write inserted; with `expect`, the
 * statement must change exactly that many rows, else the whole write is undone (WriteConflict).
 */
export interface WriteStep {
  stmt: Statement;
  params: unknown[];
  expect?: number;
}

/** The id that statement `i` of the same write inserted, as a parameter of a later one. */
export const insertedId = (i: number) => ({ insertedId: i });

/**
 * A write's `expect` failed: a row it changes moved since it was read (another instance wrote
 * it). Nothing of the write was kept; read again and retry.
 */
export class WriteConflict extends Error {}

/**
 * Another writer changed the rows between a read and the write computed from it: a step's
 * `expect` saw it, or PostgreSQL still could not order the two transactions (40001) after the
 * worker's own retries.
 */
export const movedMeanwhile = (err: unknown): boolean =>
  err instanceof WriteConflict || (err as { code?: unknown } | null)?.code === '40001';

/**
 * Runs `attempt` (a read, then a write guarded on what it read) again while its write finds the
 * rows moved meanwhile, `times` at most, with a random pause that grows after each conflict: two
 * instances that met would otherwise read and write again at the same moment. The last conflict
 * is thrown.
 */
export async function retryWhileMoved<T>(attempt: () => Promise<T>, times: number): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!movedMeanwhile(err) || n >= times) throw err;
      await setTimeout(Math.random() * Math.min(100, 2 ** n));
    }
  }
}

/** Replaces the `insertedId` references of a step's parameters (SQLite; the worker does its own). */
function resolved(params: unknown[], results: RunResult[]): unknown[] {
  const ref = (p: unknown) => (p as { insertedId?: number } | null)?.insertedId;
  return params.map((p) => {
    if (p === null || typeof p !== 'object' || typeof ref(p) !== 'number') return p;
    const id = results[ref(p)!]?.lastInsertRowid;
    return id === undefined ? null : Number(id);
  });
}

/** The steps one after the other, in the transaction the caller has open. */
export function runSteps(steps: readonly WriteStep[]): RunResult[] {
  const results: RunResult[] = [];
  steps.forEach((st, i) => {
    const r = st.stmt.run(...resolved(st.params, results));
    results.push(r);
    if (st.expect !== undefined && r.changes !== st.expect) {
      throw new WriteConflict(`statement ${i + 1} of the transaction changed other rows than read`);
    }
  });
  return results;
}

/** The steps in one transaction, synchronously (inside another transaction: a savepoint). */
export function writeNow(db: Db, steps: readonly WriteStep[]): RunResult[] {
  return db.transaction(() => runSteps(steps))();
}

/** The awaited form PostgreSQL adds (postgres/database.ts). */
interface BatchingDb extends Db {
  batchAwaited(steps: readonly WriteStep[]): Promise<RunResult[]>;
}

/**
 * The steps in one transaction, awaited. On PostgreSQL the worker runs it from BEGIN to COMMIT
 * on a connection of its own while the event loop goes on: no lock it takes waits on this
 * thread. On SQLite it runs at once (writeNow). Never call it for rows a synchronous transaction
 * of this process has open: it would not see them.
 */
export const writeAwaited = (db: Db, steps: readonly WriteStep[]): Promise<RunResult[]> =>
  'batchAwaited' in db
    ? (db as BatchingDb).batchAwaited(steps)
    : new Promise((ok) => ok(writeNow(db, steps)));
