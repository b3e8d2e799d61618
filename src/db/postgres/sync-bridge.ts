/**
 * A synchronous call into the PostgreSQL worker: post a request, block on an Atomics wait until
 * the worker answers or the deadline passes, read the answer from the port.
 *
 * Written by hand (synckit does the same for one stateless function): the bridge needs requests
 * numbered so that an answer arriving after its deadline is recognised and dropped, a bounded
 * wait that leaves the worker usable, and one long-lived worker holding the pool and the open
 * transaction.
 *
 * A closed bridge leaves its worker parked for the next one: starting a thread and loading `pg`
 * in it costs about 0.2 s of CPU, paid again by every open otherwise (a command that opens the
 * store twice, a test suite that opens a database per test).
 */
import {
  type MessagePort,
  MessageChannel,
  receiveMessageOnPort,
  Worker,
} from 'node:worker_threads';

import {
  type BatchAnswer,
  type BatchRequest,
  type PoolSettings,
  type PostgresWorkerData,
  postgresWorkerMain,
  type WorkerAnswer,
  type WorkerRequest,
} from './worker-main.js';

type Request = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

export type BridgeOptions = PoolSettings;

export class BridgeTimeout extends Error {}

// The source may run as a script or as an ES module (workers inherit node's flags), so it takes
// its `require` from a dynamic import, which both kinds allow (as the embedding worker does).
const WORKER_SOURCE =
  `import('node:module').then(({ createRequire }) => ` +
  `(${postgresWorkerMain.toString()})(createRequire(${JSON.stringify(import.meta.url)})));`;

/** A worker thread and its end of the channel; request ids go on rising across its bridges. */
interface WorkerLink {
  worker: Worker;
  port: MessagePort;
  /** The channel of awaited requests (callAsync), answered in any order. */
  asyncPort: MessagePort;
  signal: Int32Array;
  next: number;
}

type QueryRequest = Omit<Extract<WorkerRequest, { op: 'query' }>, 'id'>;
type Answer = Extract<WorkerAnswer, { rows: unknown }>;
/** What an awaited request answers: a statement's rows, or a batch's results. */
type AsyncAnswer<R> = R extends { op: 'batch' } ? BatchAnswer : Answer;

/** At most two workers wait for the next bridges (a fleet of two in one process); more would only hold memory. */
const parked: WorkerLink[] = [];
const PARKED_MAX = 2;

function startWorker(): WorkerLink {
  const { port1, port2 } = new MessageChannel();
  const awaited = new MessageChannel();
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const workerData: PostgresWorkerData = { port: port2, asyncPort: awaited.port2, signal };
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData,
    transferList: [port2, awaited.port2],
  });
  // The worker must not keep a finished command alive, running or parked; an awaited request
  // keeps the process alive while it is pending (callAsync refs its port).
  worker.unref();
  awaited.port1.unref();
  return { worker, port: port1, asyncPort: awaited.port1, signal, next: 1 };
}

/** The server's error as an Error with its SQLSTATE and detail. */
function serverError(error: { message: string; code: string | null; detail: string | null }) {
  const err = new Error(error.message) as Error & { code?: string | null; detail?: string | null };
  err.code = error.code;
  err.detail = error.detail;
  return err;
}

export class SyncBridge {
  private readonly link: WorkerLink;
  private closed = false;
  /** Awaited requests by id: their settle functions and deadline timers. */
  private readonly pending = new Map<
    number,
    {
      resolve: (a: Answer | BatchAnswer) => void;
      reject: (e: Error) => void;
      timer: NodeJS.Timeout;
    }
  >();
  private readonly onAsyncAnswer = (answer: WorkerAnswer | BatchAnswer) => {
    const p = this.pending.get(answer.id);
    if (!p) return; // an answer to a request that timed out, or of a closed bridge
    this.pending.delete(answer.id);
    clearTimeout(p.timer);
    if (this.pending.size === 0) this.link.asyncPort.unref();
    this.roundTrips += answer.trips ?? 0;
    if ('error' in answer) p.reject(serverError(answer.error));
    else p.resolve(answer);
  };
  /** Statements sent to the server through this bridge (each one network round trip). */
  roundTrips = 0;
  /** Those of them the main thread waited for, blocked (`call`, not `callAsync`). */
  blockingTrips = 0;

  constructor(
    opts: BridgeOptions,
    /** How long one request may take before the bridge gives up (beyond PostgreSQL's own limit). */
    private readonly waitMs: number,
  ) {
    this.link = parked.pop() ?? startWorker();
    this.link.asyncPort.on('message', this.onAsyncAnswer);
    this.link.asyncPort.unref();
    // Opening a pool connects nothing yet: the first query does, with its own errors.
    this.call({ op: 'open', settings: opts });
  }

  /**
   * One statement, or a batch run as one transaction, whose answer is awaited, not waited for:
   * the event loop goes on meanwhile. It runs on a connection of its own, outside the
   * transaction the synchronous side may have open (so it sees only committed rows, as another
   * instance would).
   */
  callAsync<R extends QueryRequest | Omit<BatchRequest, 'id'>>(req: R): Promise<AsyncAnswer<R>> {
    if (this.closed) return Promise.reject(new Error('the database connection is closed'));
    const id = this.link.next++;
    return new Promise<AsyncAnswer<R>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (this.pending.size === 0) this.link.asyncPort.unref();
        reject(new BridgeTimeout(`no answer within ${Math.round(this.waitMs / 1000)} s`));
      }, this.waitMs);
      timer.unref();
      this.pending.set(id, {
        resolve: resolve as (a: Answer | BatchAnswer) => void,
        reject,
        timer,
      });
      this.link.asyncPort.ref();
      this.link.asyncPort.postMessage({ ...req, id });
    });
  }

  call(req: Request): Answer {
    if (this.closed) throw new Error('the database connection is closed');
    const { port, signal } = this.link;
    const id = this.link.next++;
    Atomics.store(signal, 0, 0);
    port.postMessage({ ...req, id });
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const got = receiveMessageOnPort(port);
      if (got) {
        const answer = got.message as WorkerAnswer;
        if (answer.id !== id) continue; // an answer to a request that timed out
        this.roundTrips += answer.trips ?? 0;
        this.blockingTrips += answer.trips ?? 0;
        if ('error' in answer) throw serverError(answer.error);
        return answer;
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new BridgeTimeout(`no answer within ${Math.round(this.waitMs / 1000)} s`);
      Atomics.wait(signal, 0, 0, left);
      Atomics.store(signal, 0, 0);
    }
  }

  close(): void {
    if (this.closed) return;
    let ended = false;
    try {
      this.call({ op: 'close' });
      ended = true;
    } catch {
      // closing anyway; a worker that did not end its pool cleanly is not kept
    }
    this.closed = true;
    this.link.asyncPort.off('message', this.onAsyncAnswer);
    this.link.asyncPort.unref();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error('the database connection is closed'));
      this.pending.delete(id);
    }
    if (ended && parked.length < PARKED_MAX) parked.push(this.link);
    else void this.link.worker.terminate();
  }
}
