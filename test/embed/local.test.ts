/**
 * The local backend with the real model (USE-lite from npm) in a real worker thread. The worker
 * is started from these TypeScript sources here; local-offline.test.ts runs it from dist/.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { afterEach, describe, expect, it } from 'vitest';

import {
  createLocalEmbedder,
  LOCAL_LOAD_TIMEOUT_MS,
  type LocalEmbedder,
  spawnLocalWorker,
  type SpawnWorker,
} from '../../src/embed/local.js';
import type { WorkerRequest } from '../../src/embed/local-worker.js';
import { dot } from '../../src/memory/vectors.js';

const WIFI = 'WiFi keeps dropping';
const NETWORK = 'network configuration resets after firmware upgrades';
const BANANA = 'banana bread recipe';
const OPS = [
  'jellyfin returns 502 after the nightly restart',
  'postgres replication lag above 30 seconds',
  'disk almost full on the backup volume',
  'caddy certificate renewal failed for the dashboard host',
  'home assistant zigbee stick disconnected again',
];

/** The real worker, with every batch it is sent recorded and the threads kept for the test. */
function recordingSpawn() {
  const batches: number[] = [];
  const sent: string[][] = [];
  const workers: Worker[] = [];
  const spawn: SpawnWorker = (data) => {
    const w = spawnLocalWorker(data);
    const post = w.postMessage.bind(w);
    w.postMessage = (req: WorkerRequest) => {
      batches.push(req.texts.length);
      sent.push([...req.texts]);
      post(req);
    };
    workers.push(w);
    return w;
  };
  return { spawn, batches, sent, workers };
}

const open: LocalEmbedder[] = [];
function embedder(options: Partial<Parameters<typeof createLocalEmbedder>[0]> = {}) {
  // The model's load gets the product's own bound: it is slow on a busy machine.
  const e = createLocalEmbedder({
    timeoutMs: 20_000,
    loadTimeoutMs: LOCAL_LOAD_TIMEOUT_MS,
    ...options,
  });
  open.push(e);
  return e;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

// Each test loads the real model, which takes many seconds on a busy machine.
describe('local embeddings (USE-lite in a worker thread)', { timeout: 180_000 }, () => {
  it('puts a paraphrase of a problem near it and an unrelated text far away', async () => {
    const e = embedder();
    const [wifi, network, banana] = await e.embedQueries([WIFI, NETWORK, BANANA]);
    const related = dot(wifi!, network!);
    const unrelated = dot(wifi!, banana!);
    expect(related).toBeGreaterThan(unrelated + 0.2);
    expect(e.model).toBe('use-lite-512');
    expect(e.dimension).toBe(512);
    for (const v of [wifi!, network!, banana!]) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(512);
      expect(dot(v, v)).toBeCloseTo(1, 5);
    }
  });

  it('gives a text the same vector alone and inside a batch', async () => {
    const e = embedder();
    const together = await e.embedDocuments(OPS);
    for (const [i, text] of OPS.entries()) {
      const [alone] = await e.embedDocuments([text]);
      expect(dot(alone!, together[i]!)).toBeCloseTo(1, 5);
    }
  });

  it('coalesces calls made together into batches of at most 32 texts', async () => {
    const rec = recordingSpawn();
    const e = embedder({ spawnWorker: rec.spawn });
    const texts = Array.from({ length: 40 }, (_, i) => `${OPS[i % OPS.length]} (${i})`);
    const results = await Promise.all(texts.map((t) => e.embedQueries([t])));
    expect(rec.batches).toEqual([32, 8]);
    const [again] = await e.embedQueries([texts[33]!]);
    expect(dot(again!, results[33]![0]!)).toBeCloseTo(1, 5);
    expect(rec.workers).toHaveLength(1);
  });

  it('embeds a long job shortest text first, a repeated text once, and answers in order', async () => {
    const rec = recordingSpawn();
    const e = embedder({ spawnWorker: rec.spawn });
    // The model pads a batch to its longest text: mixed lengths would make every batch slow.
    const texts = Array.from({ length: 70 }, (_, i) =>
      i % 7 === 3 ? OPS[0]! : `${OPS[i % OPS.length]} ${'and again '.repeat(i % 9)}#${i}`,
    );
    const vectors = await e.embedDocuments(texts);
    const distinct = [...new Set(texts)];
    expect(rec.sent.flat()).toEqual([...distinct].sort((a, b) => a.length - b.length));
    expect(rec.batches).toEqual([32, 29]);
    expect(vectors).toHaveLength(texts.length);
    const alone = await e.embedDocuments([texts[11]!, OPS[0]!]);
    expect(dot(vectors[11]!, alone[0]!)).toBeCloseTo(1, 5);
    for (const [i, text] of texts.entries()) {
      if (text === OPS[0]) expect(dot(vectors[i]!, alone[1]!)).toBeCloseTo(1, 5);
    }
    // Each caller's vector is its own, even for a repeated text.
    expect(vectors[3]).not.toBe(vectors[10]);
    expect(vectors[3]).not.toBe(vectors[17]);
  });

  it('answers a query ahead of a long re-index that was queued first', async () => {
    const rec = recordingSpawn();
    const e = embedder({ spawnWorker: rec.spawn });
    await e.warmUp();
    const order: string[] = [];
    const docs = Array.from({ length: 100 }, (_, i) => `${OPS[i % OPS.length]} #${i}`);
    const reindex = e.embedDocuments(docs).then((v) => {
      order.push('documents');
      return v;
    });
    const search = e.embedQueries([WIFI]).then((v) => {
      order.push('query');
      return v;
    });
    const [vectors] = await Promise.all([reindex, search]);
    expect(order).toEqual(['query', 'documents']);
    expect(vectors).toHaveLength(100);
    expect(rec.batches).toEqual([32, 32, 32, 5]);
  });

  it('refuses an empty text, naming it, without starting the model', async () => {
    const rec = recordingSpawn();
    const e = embedder({ spawnWorker: rec.spawn });
    await expect(e.embedDocuments(['fine', '  '])).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'text 1 to embed is empty',
    });
    expect(await e.embedDocuments([])).toEqual([]);
    expect(rec.workers).toHaveLength(0);
  });

  it('rejects pending calls when the worker thread dies, and the next call starts a new one', async () => {
    const rec = recordingSpawn();
    let killed = false;
    const e = embedder({
      spawnWorker: (data) => {
        const w = rec.spawn(data);
        const post = w.postMessage.bind(w);
        w.postMessage = (req: WorkerRequest) => {
          post(req);
          if (!killed) {
            killed = true;
            void w.terminate();
          }
        };
        return w;
      },
    });
    const first = e.embedQueries([WIFI]);
    const second = e.embedDocuments([NETWORK]);
    await expect(first).rejects.toMatchObject({
      code: 'embedding_failed',
      message: expect.stringMatching(
        /^local embedding model: the worker thread stopped \(exit code \d+\).*next request starts it again$/,
      ),
    });
    await expect(second).rejects.toMatchObject({ code: 'embedding_failed' });
    const [wifi] = await e.embedQueries([WIFI]);
    expect(wifi!.length).toBe(512);
    expect(rec.workers).toHaveLength(2);
  });

  it('reports why a worker that cannot load the model failed', async () => {
    let spawned = 0;
    const e = embedder({
      spawnWorker: () => {
        spawned += 1;
        return new Worker('throw new Error("model.json: unexpected end of file")', { eval: true });
      },
    });
    await expect(e.embedQueries([WIFI])).rejects.toMatchObject({
      code: 'embedding_failed',
      message: expect.stringContaining(
        'the worker thread failed: model.json: unexpected end of file',
      ),
    });
    await expect(e.warmUp()).rejects.toMatchObject({ code: 'embedding_failed' });
    expect(spawned).toBe(2);
  });

  it('loads the model when the backend compiles its WebAssembly slowly', async () => {
    const slow = fileURLToPath(new URL('../helpers/slow-wasm.cjs', import.meta.url));
    const e = embedder({ spawnWorker: (data) => spawnLocalWorker(data, ['--require', slow]) });
    const [wifi, network, banana] = await e.embedQueries([WIFI, NETWORK, BANANA]);
    expect(dot(wifi!, network!)).toBeGreaterThan(dot(wifi!, banana!) + 0.2);
  });

  it('stops a worker that does not answer within the timeout', async () => {
    const stopped: number[] = [];
    const e = embedder({
      timeoutMs: 300,
      loadTimeoutMs: 300,
      spawnWorker: () => {
        // A thread that takes messages and never answers: a hung model.
        const w = new Worker('require("node:worker_threads").parentPort.on("message", () => {});', {
          eval: true,
        });
        w.on('exit', (code) => stopped.push(code));
        return w;
      },
    });
    await expect(e.embedQueries([WIFI])).rejects.toMatchObject({
      code: 'embedding_failed',
      message: expect.stringContaining(
        'no answer within 300 ms for a batch of 1 texts (the model was still loading)',
      ),
    });
    await expect.poll(() => stopped).toHaveLength(1);
  });

  it('warms up once, and refuses calls after close', async () => {
    const rec = recordingSpawn();
    const e = embedder({ spawnWorker: rec.spawn });
    expect(e.loadMs).toBeNull();
    await e.warmUp();
    expect(e.loadMs).toBeGreaterThan(0);
    await e.warmUp();
    expect(rec.workers).toHaveLength(1);
    expect(rec.batches).toEqual([]);
    await e.close();
    await expect(e.embedQueries([WIFI])).rejects.toMatchObject({
      code: 'embedding_failed',
      message: 'local embedding model: the embedder is closed',
    });
  });
});
