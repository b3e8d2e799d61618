/**
 * The body of the PostgreSQL worker thread: node-postgres (`pg`, pooled) answering the main
 * thread's synchronous bridge (sync-bridge.ts). Started from its source text
 * (`Worker(..., { eval: true })`) like the embedding worker, so the same file serves the
 * TypeScript sources and dist/; hence it refers to nothing outside itself (modules through
 * `load`, settings through `workerData`).
 *
 * Protocol, one request at a time on `workerData.port`; after posting each answer the worker sets
 * `signal[0]` to 1 and wakes the main thread (Atomics.notify):
 *   -> { id, op: 'open', settings }               a pool for a database (after a 'close': another)
 *   -> { id, op: 'query', text, params, mode }   mode: 'plain' | 'typed' | 'probe'
 *   -> { id, op: 'exec', text }                   several statements, no parameters
 *   -> { id, op: 'begin' | 'commit' | 'rollback', isolation? }
 *   -> { id, op: 'savepoint' | 'release' | 'rollback-to', name }
 *   -> { id, op: 'close' }
 *   <- { id, rows, rowCount, mode?, trips }  or  { id, error: { message, code, detail }, trips }
 *
 * `trips`: the statements the request sent to the server, each one network round trip (the
 * round-trip counting test, test/db/round-trips.test.ts, reads their sum).
 *
 * `workerData.asyncPort` takes 'query' requests whose answers the main thread awaits instead of
 * blocking on them (sync-bridge.ts, `callAsync`): any number at once, each on a connection of the
 * pool and never inside the synchronous side's open transaction; answered on the same port,
 * without the signal.
 *
 * The same port takes 'batch' requests: statements run in one READ COMMITTED transaction on one
 * connection, start to end inside this worker (never waiting on the main thread between two of
 * them, so a lock it holds never waits on a thread blocked by the synchronous side), run again
 * after a deadlock or a unique key met at once. A parameter `{ insertedId: i }` is the id that
 * statement i of the batch inserted; a statement with `expect` that changes another number of
 * rows rolls the batch back and answers `conflict` (its index): what it changes moved since it
 * was read. READ COMMITTED, not SERIALIZABLE like the synchronous side's transactions: a batch
 * reads nothing the caller did not read before it, outside it, so its guards (`expect`, which
 * PostgreSQL checks again on the row as the writer before it left it) are what keep two writers
 * apart; serializable, it was also undone whenever another batch's history rows or triggers'
 * rows met it in an index page (a "pivot"), for more than half of a busy fleet's
 * re-observations, each then waiting out a random pause.
 *
 * 'probe' runs a statement as written and, when PostgreSQL cannot infer a parameter's type from
 * the statement alone (`SELECT ?` in an INSERT ... SELECT, `? IS NULL`), again with each
 * parameter cast to the type of its JavaScript value; the answer says which form worked, and the
 * main thread uses that form from then on.
 */

import type * as WorkerThreads from 'node:worker_threads';
import type * as Pg from 'pg';

export interface PostgresWorkerData {
  port: WorkerThreads.MessagePort;
  asyncPort: WorkerThreads.MessagePort;
  signal: Int32Array;
}

export interface PoolSettings {
  url: string;
  poolSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  applicationName: string;
}

export type WorkerRequest =
  | { id: number; op: 'open'; settings: PoolSettings }
  | { id: number; op: 'query'; text: string; params: unknown[]; mode: 'plain' | 'typed' | 'probe' }
  | { id: number; op: 'exec'; text: string }
  | { id: number; op: 'begin'; isolation: string }
  | { id: number; op: 'commit' | 'rollback' | 'close' }
  | { id: number; op: 'savepoint' | 'release' | 'rollback-to'; name: string };

export interface BatchStatement {
  text: string;
  /** Values, or `{ insertedId: i }`: the id statement i of the batch inserted. */
  params: unknown[];
  mode: 'plain' | 'typed' | 'probe';
  /** The rows it must change; another number rolls the batch back (a conflict). */
  expect?: number;
}

export interface BatchRequest {
  id: number;
  op: 'batch';
  statements: BatchStatement[];
}

export interface StatementAnswer {
  rows: Record<string, unknown>[];
  rowCount: number;
  mode?: 'plain' | 'typed';
}

export interface BatchAnswer {
  id: number;
  results: StatementAnswer[];
  /** The index of the statement whose `expect` failed; the batch was rolled back. */
  conflict?: number;
  trips?: number;
}

export interface WorkerError {
  message: string;
  code: string | null;
  detail: string | null;
}

export type WorkerAnswer = (
  | { id: number; rows: Record<string, unknown>[]; rowCount: number; mode?: 'plain' | 'typed' }
  | { id: number; error: WorkerError }
) & { trips?: number };

export function postgresWorkerMain(load: (id: string) => unknown): void {
  const threads = load('node:worker_threads') as typeof WorkerThreads;
  const pg = load('pg') as typeof Pg;
  const { port, asyncPort, signal } = threads.workerData as PostgresWorkerData;

  // Numbers come back as numbers, as they do from SQLite: ids and counts (int8) fit in 2^53,
  // sums and averages (numeric) are read as doubles, and a boolean expression is 1 or 0.
  pg.types.setTypeParser(20, (v: string) => Number(v));
  pg.types.setTypeParser(1700, (v: string) => Number(v));
  pg.types.setTypeParser(16, (v: string) => (v === 't' ? 1 : 0));

  let open: Pg.Pool | null = null;
  let tx: Pg.PoolClient | null = null;
  /** Statements sent to the server, per request (the synchronous side's one at a time). */
  interface Tally {
    trips: number;
  }
  const sync: Tally = { trips: 0 };
  const send = (
    client: Pg.Pool | Pg.PoolClient,
    text: string,
    params: unknown[] = [],
    tally: Tally = sync,
  ) => {
    tally.trips += 1;
    return client.query(text, params);
  };

  function openPool(s: PoolSettings): Pg.Pool {
    const pool = new pg.Pool({
      connectionString: s.url,
      max: s.poolSize,
      connectionTimeoutMillis: s.connectTimeoutMs,
      statement_timeout: s.statementTimeoutMs,
      // A connection that silently stops answering (a network split) fails on the client side too.
      query_timeout: s.statementTimeoutMs + 2_000,
      keepAlive: true,
      idle_in_transaction_session_timeout: s.statementTimeoutMs * 2,
      application_name: s.applicationName,
    });
    // An idle connection that dies is dropped by the pool; the next request gets a fresh one.
    pool.on('error', () => undefined);
    // One that dies while taken from the pool (between two statements of a transaction) fails
    // the statement that uses it next: its error event must not end the thread, and with it
    // every later statement of this process.
    pool.on('connect', (client) => client.on('error', () => undefined));
    return pool;
  }

  function pool(): Pg.Pool {
    if (!open) throw new Error('the database connection is closed');
    return open;
  }

  // Codes for "PostgreSQL could not type a parameter": indeterminate_datatype, datatype_mismatch,
  // undefined_function (an operator for `unknown`), ambiguous_function, and one parameter used
  // as two types
  // inconsistent types deduced (42P08).
  const TYPE_CODES = new Set(['42P18', '42804', '42883', '42725', '42P08']);

  function typed(text: string, params: unknown[]): string {
    return text.replace(/\$(\d+)\b/g, (m, n: string) => {
      const v = params[Number(n) - 1];
      if (typeof v === 'number') return Number.isInteger(v) ? `${m}::bigint` : `${m}::float8`;
      if (typeof v === 'bigint') return `${m}::bigint`;
      if (typeof v === 'string') return `${m}::text`;
      if (v instanceof Uint8Array) return `${m}::bytea`;
      return m;
    });
  }

  async function run(text: string, params: unknown[]): Promise<Pg.QueryResult> {
    return send(tx ?? pool(), text, params);
  }

  /** A statement in the open transaction (savepoints around a probe), else on the pool. */
  async function query(
    r: Extract<WorkerRequest, { op: 'query' }>,
    inTx: Pg.PoolClient | null,
    tally: Tally = sync,
  ): Promise<WorkerAnswer> {
    const on = inTx ?? pool();
    if (r.mode !== 'probe') {
      const res = await send(
        on,
        r.mode === 'typed' ? typed(r.text, r.params) : r.text,
        r.params,
        tally,
      );
      return { id: r.id, rows: res.rows, rowCount: res.rowCount ?? 0 };
    }
    if (inTx) await send(inTx, 'SAVEPOINT wk_probe', [], tally);
    try {
      const res = await send(on, r.text, r.params, tally);
      if (inTx) await send(inTx, 'RELEASE SAVEPOINT wk_probe', [], tally);
      return { id: r.id, rows: res.rows, rowCount: res.rowCount ?? 0, mode: 'plain' };
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (inTx) await send(inTx, 'ROLLBACK TO SAVEPOINT wk_probe', [], tally);
      if (!TYPE_CODES.has(code)) throw err;
      const res = await send(on, typed(r.text, r.params), r.params, tally);
      if (inTx) await send(inTx, 'RELEASE SAVEPOINT wk_probe', [], tally);
      return { id: r.id, rows: res.rows, rowCount: res.rowCount ?? 0, mode: 'typed' };
    }
  }

  async function handle(r: WorkerRequest): Promise<WorkerAnswer> {
    const done = { id: r.id, rows: [], rowCount: 0 };
    switch (r.op) {
      case 'open':
        open = openPool(r.settings);
        return done;
      case 'query':
        return query(r, tx);
      case 'exec':
        await run(r.text, []);
        return done;
      case 'begin': {
        const client = await pool().connect();
        try {
          await send(client, `BEGIN ISOLATION LEVEL ${r.isolation}`);
        } catch (err) {
          client.release(true);
          throw err;
        }
        tx = client;
        return done;
      }
      case 'commit':
      case 'rollback': {
        const client = tx;
        tx = null;
        if (!client) return done;
        try {
          await send(client, r.op === 'commit' ? 'COMMIT' : 'ROLLBACK');
          client.release();
        } catch (err) {
          client.release(true);
          throw err;
        }
        return done;
      }
      case 'savepoint':
        await run(`SAVEPOINT ${r.name}`, []);
        return done;
      case 'release':
        await run(`RELEASE SAVEPOINT ${r.name}`, []);
        return done;
      case 'rollback-to':
        await run(`ROLLBACK TO SAVEPOINT ${r.name}`, []);
        return done;
      case 'close':
        tx?.release(true);
        tx = null;
        await open?.end();
        open = null;
        return done;
    }
  }

  // 23505: two batches that delete and insert one unique key at once (a memory's vector); run
  // again, the later one replaces the earlier's row. A true duplicate fails every attempt.
  const RETRY_CODES = new Set(['40001', '40P01', '23505']);
  const BATCH_ATTEMPTS = 8;
  const insertedId = (p: unknown): number | null => {
    const ref = (p as { insertedId?: unknown } | null)?.insertedId;
    return p !== null && typeof p === 'object' && typeof ref === 'number' ? ref : null;
  };

  /** One transaction of statements, run here from BEGIN to COMMIT (again after a conflict). */
  async function batch(r: BatchRequest, tally: Tally): Promise<BatchAnswer> {
    for (let attempt = 1; ; attempt++) {
      const client = await pool().connect();
      let broken = false;
      try {
        await send(client, 'BEGIN ISOLATION LEVEL READ COMMITTED', [], tally);
        const results: StatementAnswer[] = [];
        for (const st of r.statements) {
          const params = st.params.map((p) => {
            const ref = insertedId(p);
            return ref === null ? p : (results[ref]?.rows[0]?.id ?? null);
          });
          const { rows, rowCount, mode } = (await query(
            { id: r.id, op: 'query', text: st.text, params, mode: st.mode },
            client,
            tally,
          ).catch((err: unknown) => {
            // Named as the synchronous side names a failed statement.
            if (err instanceof Error) err.message += ` (in: ${st.text.slice(0, 300)})`;
            throw err;
          })) as StatementAnswer;
          results.push(mode ? { rows, rowCount, mode } : { rows, rowCount });
          if (st.expect !== undefined && rowCount !== st.expect) {
            await send(client, 'ROLLBACK', [], tally);
            return { id: r.id, results, conflict: results.length - 1 };
          }
        }
        await send(client, 'COMMIT', [], tally);
        return { id: r.id, results };
      } catch (err) {
        await send(client, 'ROLLBACK', [], tally).catch(() => (broken = true));
        const code = (err as { code?: string }).code ?? '';
        if (!RETRY_CODES.has(code) || attempt >= BATCH_ATTEMPTS) throw err;
      } finally {
        client.release(broken);
      }
      // A random pause, longer after each conflict (up to 0.1 s, as the synchronous side's), so
      // that two writers part ways; the connection is back in the pool meanwhile.
      await new Promise((ok) => setTimeout(ok, Math.random() * Math.min(100, 2 ** attempt)));
    }
  }

  function answer(a: WorkerAnswer): void {
    port.postMessage({ ...a, trips: sync.trips });
    sync.trips = 0;
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  }

  const failure = (id: number, err: unknown): WorkerAnswer => {
    const e = err as { message?: string; code?: unknown; detail?: unknown };
    return {
      id,
      error: {
        message: String(e?.message ?? err),
        code: typeof e?.code === 'string' ? e.code : null,
        detail: typeof e?.detail === 'string' ? e.detail : null,
      },
    };
  };

  port.on('message', (r: WorkerRequest) => {
    handle(r).then(answer, (err: unknown) => answer(failure(r.id, err)));
  });

  // Awaited requests: their statements are not the synchronous side's (`trips` counts those).
  asyncPort.on('message', (r: Extract<WorkerRequest, { op: 'query' }> | BatchRequest) => {
    const tally: Tally = { trips: 0 };
    (r.op === 'batch' ? batch(r, tally) : query(r, null, tally)).then(
      (a) => asyncPort.postMessage({ ...a, trips: tally.trips }),
      (err: unknown) => asyncPort.postMessage({ ...failure(r.id, err), trips: tally.trips }),
    );
  });
}
