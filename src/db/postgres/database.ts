/**
 * The PostgreSQL engine behind the stores' synchronous database interface (`Db`, engine.ts):
 * statements translated once (sql-dialect.ts), run through the worker's pool (sync-bridge.ts).
 * Transactions are SERIALIZABLE and run again when PostgreSQL reports a conflict with another
 * instance's transaction, so two sidecars changing the same rows give the result of one after
 * the other; a nested transaction is a savepoint, as in better-sqlite3.
 */
import { AppError } from '../../errors.js';
import {
  type ArgsOf,
  type Db,
  type RunResult,
  type Statement,
  type WriteStep,
  WriteConflict,
} from '../engine.js';
import { translateSql, type TranslatedSql } from './sql-dialect.js';
import { BridgeTimeout, SyncBridge } from './sync-bridge.js';
import type { StatementAnswer } from './worker-main.js';
import { type ChangeFeed, startChangeFeed } from './change-feed.js';
import { redactUrl } from './url.js';

export interface PostgresOptions {
  poolSize?: number;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
}

/**
 * Connections a process may hold at most. They are opened as needed and closed when idle, so a
 * command holds one or two; serve's awaited reads and writes (pages under load, a session's
 * ingest, searches) run side by side on as many as there are, each waiting one network round trip.
 */
const POOL_SIZE = 10;

/** serialization_failure and deadlock_detected: the transaction may simply be run again. */
const RETRY_CODES = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 8;
const pause = new Int32Array(new SharedArrayBuffer(4));
/**
 * Waits a random while before running a transaction again, longer after each conflict (up to
 * 0.1 s): two instances that conflicted at once would otherwise run again at once and conflict
 * again. The transaction is synchronous, so the wait is too (Atomics.wait on nothing).
 */
const backOff = (attempt: number) =>
  Atomics.wait(pause, 0, 0, Math.random() * Math.min(100, 2 ** attempt));
/**
 * Messages of a server out of reach (the socket's errors, pg's connect and end messages, and a
 * connection's statement after that connection died).
 */
const UNREACHABLE =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|timeout exceeded when trying to connect|Connection terminated|connect ECONN|connection error and is not queryable/i;

/**
 * True for an error that means the server is out of reach, not that the statement is wrong:
 * the bridge's deadline, a socket error, a connection exception (SQLSTATE 08xxx) or the server
 * shutting down or starting up (57P01-57P03).
 */
export function isConnectionLoss(err: unknown): boolean {
  if (err instanceof BridgeTimeout) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(08|57P0[1-3]$)/.test(code)) return true;
  return err instanceof Error && UNREACHABLE.test(err.message);
}

/** How a server out of reach is named (the message of `db_unavailable`), its password hidden. */
const unreachableMessage = (url: string, why: string) =>
  `PostgreSQL at ${redactUrl(url)} is unreachable: ${why}`;

/** True for a message `unreachableMessage` wrote (another process's error line, say). */
export const saysUnreachable = (text: string): boolean =>
  /^PostgreSQL at \S+ is unreachable: /.test(text);

export class PostgresDb implements Db {
  readonly engine = 'postgres' as const;
  private readonly bridge: SyncBridge;
  private readonly tablesWithId = new Set<string>();
  private feed: ChangeFeed | null = null;
  /** Writes this process made, per table (their notifications arrive later; change-watch.ts). */
  private readonly written = new Map<string, number>();
  private writes = 0;
  private readonly applicationName: string;
  private depth = 0;
  private savepoints = 0;
  readonly url: string;

  constructor(url: string, opts: PostgresOptions = {}) {
    this.url = url;
    this.applicationName = opts.applicationName ?? 'watchkeeper';
    const statementTimeoutMs = opts.statementTimeoutMs ?? 30_000;
    const connectTimeoutMs = opts.connectTimeoutMs ?? 5_000;
    this.bridge = new SyncBridge(
      {
        url,
        poolSize: opts.poolSize ?? POOL_SIZE,
        connectTimeoutMs,
        statementTimeoutMs,
        applicationName: this.applicationName,
      },
      statementTimeoutMs + connectTimeoutMs + 5_000,
    );
  }

  /** Reads which tables have an `id` column (an INSERT into one returns the new id). */
  refreshSchema(): void {
    this.tablesWithId.clear();
    const rows = this.call({
      op: 'query',
      text: `SELECT table_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name = 'id'`,
      params: [],
      mode: 'plain',
    }).rows as { table_name: string }[];
    for (const r of rows) this.tablesWithId.add(r.table_name);
  }

  prepare(sql: string): Statement {
    return new PostgresStatement(this, translateSql(sql, this.tablesWithId));
  }

  exec(sql: string): this {
    this.call({ op: 'exec', text: sql });
    return this;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- better-sqlite3's own constraint
  transaction<F extends (...args: any[]) => unknown>(fn: F): (...args: ArgsOf<F>) => ReturnType<F> {
    const run = (...args: ArgsOf<F>): ReturnType<F> => {
      if (this.depth > 0) return this.nested(fn, args);
      for (let attempt = 1; ; attempt++) {
        this.call({ op: 'begin', isolation: 'SERIALIZABLE' });
        this.depth = 1;
        try {
          const result = fn(...args) as ReturnType<F>;
          this.call({ op: 'commit' });
          return result;
        } catch (err) {
          try {
            this.call({ op: 'rollback' });
          } catch {
            // the connection is gone; the server rolls back on its own
          }
          const code = (err as { code?: string }).code ?? '';
          if (!RETRY_CODES.has(code) || attempt >= MAX_ATTEMPTS) throw err;
          backOff(attempt);
        } finally {
          this.depth = 0;
        }
      }
    };
    return run;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as transaction()
  private nested<F extends (...args: any[]) => unknown>(fn: F, args: ArgsOf<F>) {
    const name = `wk_sp_${++this.savepoints}`;
    this.call({ op: 'savepoint', name });
    this.depth++;
    try {
      const result = fn(...args) as ReturnType<F>;
      this.call({ op: 'release', name });
      return result;
    } catch (err) {
      this.call({ op: 'rollback-to', name });
      throw err;
    } finally {
      this.depth--;
    }
  }

  pragma(source: string): never {
    throw new AppError('unsupported', `PRAGMA ${source} is SQLite's; this store is PostgreSQL`);
  }

  /** How many statements of this process wrote to the table so far. */
  writeCount(table: string): number {
    return this.written.get(table) ?? 0;
  }

  /** Counts a statement's write (called by the statements). */
  noteWrite(table: string): void {
    this.written.set(table, (this.written.get(table) ?? 0) + 1);
    this.writes++;
  }

  /** Statements of this process that wrote, in all (its own changes, seen before their NOTIFY). */
  writeTotal(): number {
    return this.writes;
  }

  /**
   * Statements this connection sent to the server so far: each is one network round trip, so
   * the difference across an operation is what it costs with the database on another host.
   */
  roundTrips(): number {
    return this.bridge.roundTrips;
  }

  /** Those of them this thread waited for, blocked: the event loop stood still meanwhile. */
  blockingRoundTrips(): number {
    return this.bridge.blockingTrips;
  }

  /** What other instances (and this one) changed, heard through LISTEN; started on first use. */
  changes(): ChangeFeed {
    this.feed ??= startChangeFeed(this.url, this.applicationName);
    return this.feed;
  }

  close(): void {
    void this.feed?.close();
    this.bridge.close();
  }

  /** One request to the worker, with the server's errors turned into the app's. */
  call(req: Parameters<SyncBridge['call']>[0]) {
    try {
      return this.bridge.call(req);
    } catch (err) {
      throw this.unreachable(err);
    }
  }

  /** One statement, awaited: the event loop goes on while the server answers (sync-bridge.ts). */
  async callAsync<R extends Parameters<SyncBridge['callAsync']>[0]>(req: R) {
    try {
      return await this.bridge.callAsync(req);
    } catch (err) {
      throw this.unreachable(err);
    }
  }

  /**
   * Statements in one transaction, awaited: the worker runs it from BEGIN to COMMIT on its own
   * (engine.ts, `writeAwaited`). A failed `expect` rejects with a WriteConflict.
   */
  async batchAwaited(steps: readonly WriteStep[]): Promise<RunResult[]> {
    const statements = steps.map((st) => {
      const stmt = st.stmt as PostgresStatement;
      return {
        ...stmt.request(st.params),
        ...(st.expect !== undefined ? { expect: st.expect } : {}),
      };
    });
    const answer = await this.callAsync({ op: 'batch', statements });
    const results = answer.results.map((a, i) => (steps[i]!.stmt as PostgresStatement).answered(a));
    if (answer.conflict !== undefined) {
      throw new WriteConflict(
        `statement ${answer.conflict + 1} of the transaction changed other rows than read`,
      );
    }
    return results;
  }

  /** A lost connection as the app's `db_unavailable`; any other error as it is. */
  private unreachable(err: unknown): unknown {
    if (!isConnectionLoss(err)) return err;
    return new AppError('db_unavailable', unreachableMessage(this.url, (err as Error).message), {
      cause: err,
    });
  }
}

class PostgresStatement implements Statement {
  /** How parameters are sent: as they are, or cast to their values' types (worker-main.ts). */
  private mode: 'plain' | 'typed' | 'probe';

  constructor(
    private readonly db: PostgresDb,
    private readonly sql: TranslatedSql,
  ) {
    this.mode = sql.count === 0 ? 'plain' : 'probe';
  }

  private params(args: unknown[]): unknown[] {
    const { names } = this.sql;
    if (names) {
      const bag = (args[0] ?? {}) as Record<string, unknown>;
      return names.map((n) => normalize(bag[n]));
    }
    return args.map(normalize);
  }

  /** The request that runs it with these parameters (in a batch: `{ insertedId }` kept). */
  request(args: unknown[]) {
    return {
      op: 'query' as const,
      text: this.sql.text,
      params: this.params(args),
      mode: this.mode,
    };
  }

  /** Names the statement in a server error: "syntax error at or near" alone says little. */
  private named(err: unknown): unknown {
    if (err instanceof Error && !(err instanceof AppError)) {
      err.message = `${err.message} (in: ${this.sql.text.replace(/\s+/g, ' ').slice(0, 300)})`;
    }
    return err;
  }

  private exec(args: unknown[]) {
    let answer;
    try {
      answer = this.db.call(this.request(args));
    } catch (err) {
      throw this.named(err);
    }
    return this.received(answer);
  }

  private async execAsync(args: unknown[]) {
    let answer;
    try {
      answer = await this.db.callAsync(this.request(args));
    } catch (err) {
      throw this.named(err);
    }
    return this.received(answer);
  }

  /** A batch's answer for this statement, as `run` gives it. */
  answered(answer: StatementAnswer): RunResult {
    return this.result(this.received(answer));
  }

  private received<A extends StatementAnswer>(answer: A): A {
    if (answer.mode) this.mode = answer.mode;
    if (this.sql.writes) this.db.noteWrite(this.sql.writes);
    for (const row of answer.rows) {
      for (const key in row) {
        // Buffers cross the thread as plain Uint8Arrays; SQLite hands out Buffers.
        const v = row[key];
        if (v instanceof Uint8Array && !Buffer.isBuffer(v)) {
          row[key] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
        }
      }
    }
    return answer;
  }

  private result(a: { rows: Record<string, unknown>[]; rowCount: number }): RunResult {
    const id = this.sql.returnsId ? (a.rows[0]?.id as number | undefined) : undefined;
    return { changes: a.rowCount, lastInsertRowid: id ?? 0 };
  }

  run(...args: unknown[]): RunResult {
    return this.result(this.exec(args));
  }

  async runAsync(...args: unknown[]): Promise<RunResult> {
    return this.result(await this.execAsync(args));
  }

  async getAsync(...args: unknown[]): Promise<unknown> {
    return (await this.execAsync(args)).rows[0];
  }

  async allAsync(...args: unknown[]): Promise<unknown[]> {
    return (await this.execAsync(args)).rows;
  }

  get(...args: unknown[]): unknown {
    return this.exec(args).rows[0];
  }

  all(...args: unknown[]): unknown[] {
    return this.exec(args).rows;
  }

  iterate(...args: unknown[]): IterableIterator<unknown> {
    return this.exec(args).rows[Symbol.iterator]();
  }
}

/** Parameters as better-sqlite3 would take them (it refuses booleans; the stores pass 0/1). */
function normalize(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  // PostgreSQL's text cannot hold U+0000 (SQLite's can): it is kept as U+FFFD, the character
  // that stands for one that could not be stored, rather than failing the whole write.
  if (typeof v === 'string' && v.includes('\0')) return v.replaceAll('\0', '\uFFFD');
  return v;
}
