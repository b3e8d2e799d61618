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
  signal: Int32Array;
  next: number;
}

/** At most two workers wait for the next bridges (a fleet of two in one process); more would only hold memory. */
const parked: WorkerLink[] = [];
const PARKED_MAX = 2;

function startWorker(): WorkerLink {
  const { port1, port2 } = new MessageChannel();
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const workerData: PostgresWorkerData = { port: port2, signal };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData, transferList: [port2] });
  // The worker must not keep a finished command alive, running or parked.
  worker.unref();
  return { worker, port: port1, signal, next: 1 };
}

export class SyncBridge {
  private readonly link: WorkerLink;
  private closed = false;
  /** Statements sent to the server through this bridge (each one network round trip). */
  roundTrips = 0;

  constructor(
    opts: BridgeOptions,
    /** How long one request may take before the bridge gives up (beyond PostgreSQL's own limit). */
    private readonly waitMs: number,
  ) {
    this.link = parked.pop() ?? startWorker();
    // Opening a pool connects nothing yet: the first query does, with its own errors.
    this.call({ op: 'open', settings: opts });
  }

  call(req: Request): Extract<WorkerAnswer, { rows: unknown }> {
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
        if ('error' in answer) {
          const err = new Error(answer.error.message) as Error & {
            code?: string | null;
            detail?: string | null;
          };
          err.code = answer.error.code;
          err.detail = answer.error.detail;
          throw err;
        }
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
    if (ended && parked.length < PARKED_MAX) parked.push(this.link);
    else void this.link.worker.terminate();
  }
}
