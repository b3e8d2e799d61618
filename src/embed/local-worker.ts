/**
 * The body of the local model's worker thread. It is started from its source text
 * (`Worker(..., { eval: true })`), so one file serves both the TypeScript sources (tests) and
 * the compiled dist/ (production) without a loader or a copy step. Hence the rules for this
 * function: it refers to nothing outside itself (every module comes through `load`, every
 * path through `workerData`), and nothing here may be imported at run time by anyone else.
 *
 * Protocol (one batch at a time):
 *   -> { id, texts }                 embed these texts
 *   <- { type: 'ready', loadMs }     the model is loaded (sent once, before any answer)
 *   <- { type: 'vectors', id, dimension, flat }   all vectors, row after row, in one buffer
 *   <- { type: 'failed', id, message }           this batch failed; the worker lives on
 * A model that cannot load is thrown, which ends the thread ('error' on the Worker).
 */

import type * as WorkerThreads from 'node:worker_threads';

export interface LocalWorkerData {
  /** Resolved entry files of the model packages (resolved by the parent). */
  coreModule: string;
  embeddingsModule: string;
  modelModule: string;
}

export interface WorkerRequest {
  id: number;
  texts: string[];
}

export type WorkerAnswer =
  | { type: 'ready'; loadMs: number }
  | { type: 'vectors'; id: number; dimension: number; flat: Float32Array }
  | { type: 'failed'; id: number; message: string };

interface Model {
  embed(texts: string[]): Promise<number[][]>;
}

export function localWorkerMain(load: (id: string) => unknown): void {
  // Whatever the model's library prints goes to stderr (the log), never to stdout, which may be
  // a command's --json output. (Reading the thread's streams from the parent instead would keep
  // the process alive.)
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const threads = load('node:worker_threads') as typeof WorkerThreads;
  const port = threads.parentPort!;
  const data = threads.workerData as LocalWorkerData;
  const started = performance.now();
  const loading = (async (): Promise<Model> => {
    const { initModel } = load(data.embeddingsModule) as {
      initModel(source: unknown): Promise<Model>;
    };
    const { modelSource } = load(data.modelModule) as { modelSource: unknown };
    // The backend first, then the model. `initModel` starts both together, and the model's
    // weights become tensors as soon as they are read: when the backend's WebAssembly is still
    // compiling then (a busy machine), that fails with "Backend 'wasm' has not yet been
    // initialized".
    const { ready } = load(data.coreModule) as { ready(): Promise<void> };
    await ready();
    const model = await initModel(modelSource);
    port.postMessage({ type: 'ready', loadMs: performance.now() - started });
    return model;
  })();
  loading.catch((err: unknown) => {
    process.nextTick(() => {
      throw err;
    });
  });
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

  port.on('message', (req: WorkerRequest) => {
    loading
      .then(async (model) => {
        const rows = await model.embed(req.texts);
        // The model drops the row of a text that has no tokens: never hand back shifted rows.
        if (rows.length !== req.texts.length) {
          throw new Error(
            `the model returned ${rows.length} vectors for ${req.texts.length} texts`,
          );
        }
        const dimension = rows[0]?.length ?? 0;
        const flat = new Float32Array(rows.length * dimension);
        rows.forEach((row, i) => flat.set(row, i * dimension));
        port.postMessage({ type: 'vectors', id: req.id, dimension, flat }, [flat.buffer]);
      })
      .catch((err: unknown) => {
        port.postMessage({ type: 'failed', id: req.id, message: message(err) });
      });
  });
}
