/**
 * A synchronous call into the PostgreSQL worker: post a request, block on an Atomics wait until
 * the worker answers or the deadline passes, read the answer from the port.
 *
 * Written by hand (synckit does the same for one stateless function): the bridge needs requests
 * numbered so that an answer arriving after its deadline is recognised and dropped, a bounded
 * wait that leaves the worker usable, and one long-lived worker holding the pool and the open
 * transaction.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

import {
  type PostgresWorkerData,
  postgresWorkerMain,
  type WorkerAnswer,
  type WorkerRequest,
} from './worker-main.js';

type Request = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

export interface BridgeOptions {
  url: string;
  poolSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  applicationName: string;
}

export class BridgeTimeout extends Error {}

// The source may run as a script or as an ES module (workers inherit node's flags), so it takes
// its `require` from a dynamic import, which both kinds allow (as the embedding worker does).
const WORKER_SOURCE =
  `import('node:module').then(({ createRequire }) => ` +
  `(${postgresWorkerMain.toString()})(createRequire(${JSON.stringify(import.meta.url)})));`;

export class SyncBridge {
  private readonly worker: Worker;
  private readonly port;
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private next = 1;
  private closed = false;

  constructor(
    opts: BridgeOptions,
    /** How long one request may take before the bridge gives up (beyond PostgreSQL's own limit). */
    private readonly waitMs: number,
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const workerData: PostgresWorkerData = { ...opts, port: port2, signal: this.signal };
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData,
      transferList: [port2],
    });
    // The worker must not keep a finished command alive; it is ended by close().
    this.worker.unref();
  }

  call(req: Request): Extract<WorkerAnswer, { rows: unknown }> {
    if (this.closed) throw new Error('the database connection is closed');
    const id = this.next++;
    Atomics.store(this.signal, 0, 0);
    this.port.postMessage({ ...req, id });
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const got = receiveMessageOnPort(this.port);
      if (got) {
        const answer = got.message as WorkerAnswer;
        if (answer.id !== id) continue; // an answer to a request that timed out
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
      Atomics.wait(this.signal, 0, 0, left);
      Atomics.store(this.signal, 0, 0);
    }
  }

  close(): void {
    if (this.closed) return;
    try {
      this.call({ op: 'close' });
    } catch {
      // closing anyway
    }
    this.closed = true;
    void this.worker.terminate();
  }
}
