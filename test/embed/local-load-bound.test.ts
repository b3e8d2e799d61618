/**
 * The local backend's two bounds: the model load has its own (long) one, so a slow first load on
 * a busy machine is waited for rather than turned into a failed batch (and a lexical fallback);
 * the per-batch timeout bounds the model's answer once it is loaded. The model thread is a
 * scripted stand-in and the clock is vitest's, so nothing here depends on the machine's speed.
 */
import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { createLocalEmbedder, LOCAL_DIMENSION } from '../../src/embed/local.js';
import type { WorkerAnswer, WorkerRequest } from '../../src/embed/local-worker.js';

/** A model thread that loads and answers only when the test says so. */
class ScriptedModel extends EventEmitter {
  requests: WorkerRequest[] = [];
  terminated = false;
  postMessage(req: WorkerRequest): void {
    this.requests.push(req);
  }
  ref(): void {}
  unref(): void {}
  terminate(): Promise<number> {
    this.terminated = true;
    return Promise.resolve(1);
  }
  loaded(loadMs: number): void {
    this.emit('message', { type: 'ready', loadMs } satisfies WorkerAnswer);
  }
  answer(req: WorkerRequest): void {
    const flat = new Float32Array(req.texts.length * LOCAL_DIMENSION).fill(1);
    this.emit('message', {
      type: 'vectors',
      id: req.id,
      dimension: LOCAL_DIMENSION,
      flat,
    } satisfies WorkerAnswer);
  }
}

/** Lets the embedder send what it batched (it batches on setImmediate, which is not faked). */
const sent = () => new Promise((resolve) => setImmediate(resolve));

/** A promise's outcome so far, without awaiting it. */
function track<T>(p: Promise<T>) {
  const state: { settled: boolean; error?: Error } = { settled: false };
  p.then(
    () => (state.settled = true),
    (err: Error) => Object.assign(state, { settled: true, error: err }),
  );
  return state;
}

let model: ScriptedModel;
const embedder = () =>
  createLocalEmbedder({
    timeoutMs: 1_000,
    loadTimeoutMs: 60_000,
    spawnWorker: () => {
      model = new ScriptedModel();
      return model as unknown as Worker;
    },
  });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the local model load and batch bounds', () => {
  it('waits for a load longer than the batch timeout, then answers', async () => {
    const e = embedder();
    const call = e.embedQueries(['WiFi keeps dropping']);
    const state = track(call);
    await sent();
    vi.advanceTimersByTime(30_000);
    await sent();
    expect(state).toEqual({ settled: false });
    model.loaded(30_000);
    model.answer(model.requests[0]!);
    const vectors = await call;
    expect(vectors).toHaveLength(1);
    expect(vectors[0]).toHaveLength(LOCAL_DIMENSION);
    expect(e.loadMs).toBe(30_000);
    await e.close();
  });

  it('bounds a batch sent during the load by the batch timeout once the model is loaded', async () => {
    const e = embedder();
    const call = e.embedQueries(['WiFi keeps dropping']);
    const state = track(call);
    await sent();
    vi.advanceTimersByTime(5_000);
    model.loaded(5_000);
    vi.advanceTimersByTime(999);
    await sent();
    expect(state.settled).toBe(false);
    vi.advanceTimersByTime(1);
    await expect(call).rejects.toMatchObject({
      code: 'embedding_failed',
      message:
        'local embedding model: no answer within 1000 ms for a batch of 1 texts, ' +
        'so the worker thread was stopped; the next request starts it again',
    });
    expect(model.terminated).toBe(true);
    await e.close();
  });

  it('stops a model that does not load within the load bound', async () => {
    const e = embedder();
    const call = e.embedQueries(['WiFi keeps dropping']);
    const state = track(call);
    await sent();
    vi.advanceTimersByTime(59_999);
    await sent();
    expect(state.settled).toBe(false);
    vi.advanceTimersByTime(1);
    await expect(call).rejects.toMatchObject({
      code: 'embedding_failed',
      message: expect.stringContaining(
        'no answer within 60000 ms for a batch of 1 texts (the model was still loading)',
      ),
    });
    expect(model.terminated).toBe(true);
    await e.close();
  });
});
