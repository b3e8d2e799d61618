/**
 * The store on PostgreSQL beside SQLite, measured in one run on the same data
 * (npm run bench -- --only fleet), with PostgreSQL reached directly and through a proxy that
 * holds every chunk 0, 0.5 and 2 ms in each direction (bench/delay-proxy.js: a database one
 * network hop away; BENCH_FLEET_DELAYS changes the list):
 *
 * - the memories and events pages: `watchkeeper serve` on each over 20,000 memories and events,
 *   requests per second and p50/p99 (wrk, or autocannon without it; 32 connections), and the
 *   serve process's event-loop delay (p99 and max) under that load, from its own /metrics;
 * - the same events-page load while a session ingests markers: a run started over the API whose
 *   CLI (the fleet fixture, test/fixtures/bin/fleet-claude.mjs, standing in for the Claude CLI)
 *   says an [EVENT] and a [MEMORY], then pauses 40 ms, 150 times; serve's event-loop delay
 *   meanwhile, and every event checked to be a row; then again under a dashboard's steady load
 *   (100 requests a second) instead, where the loop's delay is what the database's waits add
 *   rather than the rendering of pages as fast as they can be asked;
 * - search: the one search (BM25 + vectors + fusion) over the same 20,000 memories with their
 *   vectors, median and p95 ranking time per query; where the server can install pgvector, also
 *   over a database that has it (the vector list is then PostgreSQL's);
 * - reinforcement throughput through the API: two serve processes each sent 16 re-observations
 *   at a time of the same 50 memories (POST /api/v1/memories) for a few seconds (and, on SQLite
 *   and PostgreSQL directly, one alone); every answer must be a reinforcement, and every one
 *   counted (the memories' history holds as many as were answered).
 *
 * The vectors are seeded random unit vectors (the model's speed is the embeddings part's); the
 * query vectors likewise, so that the vector pass does its full work.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { openStores } from '../dist/db/index.js';
import { createKnowledge } from '../dist/knowledge/index.js';
import { createAnnIndex } from '../dist/knowledge/vector-ann.js';
import { rankExact } from '../dist/knowledge/vector-index.js';
import { normalise, toBlob } from '../dist/memory/index.js';
import { startDelayProxy } from './delay-proxy.js';
import { startPostgres } from './postgres-server.js';
import { createRng } from './prng.js';
import { round } from './stats.js';
import { freePort, hasWrk, load, steadyLoad, TOKEN } from './wrk.js';

const BIN = fileURLToPath(new URL('../bin/watchkeeper.js', import.meta.url));
const FIXTURE_CLI = fileURLToPath(
  new URL('../test/fixtures/bin/fleet-claude.mjs', import.meta.url),
);
/** The ingesting session's steps: an event, a memory, then a pause, this many times. */
const INGEST_STEPS = 150;
/**
 * The steady load of the second ingest: requests per second to the Events page, what some 500
 * open dashboards refreshing every 5 s ask (the first ingest's load asks as fast as serve answers).
 */
const DASHBOARD_RATE = 100;
const ROWS = Number(process.env.BENCH_FLEET_ROWS ?? 20_000);
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 8);
const REINFORCE_SECONDS = Number(process.env.BENCH_REINFORCE_SECONDS ?? 5);
/** Requests each serve is sent at a time in the reinforcement bench. */
const WRITERS = 16;
/** Milliseconds the proxy holds each chunk per direction, one PostgreSQL target each. */
const DELAYS = (process.env.BENCH_FLEET_DELAYS ?? '0,0.5,2').split(',').map(Number);
const DIM = 512;
const MODEL = 'bench-random-512';
const WORDS = (
  'restart timeout cache disk memory latency backup certificate dns proxy queue replica ' +
  'index vacuum checkpoint connection pool upstream health probe volume mount permission ' +
  'rotation snapshot migration schema lock deadlock eviction throttle retry webhook cron'
).split(' ');

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function randomVector(rng) {
  const v = new Float32Array(DIM);
  for (let k = 0; k < DIM; k += 1) v[k] = rng() * 2 - 1;
  return normalise(v);
}

function text(rng, i) {
  const pick = () => WORDS[Math.floor(rng() * WORDS.length)];
  return `svc-${i % 300} ${pick()} ${pick()} after ${pick()}: ${i % 120}s to ${pick()} (${i})`;
}

/** The same memories, events and vectors in either engine's store. */
function seed(target) {
  const stores = openStores(target, { instance: 'bench' });
  const rng = createRng(7).next;
  const at = Date.UTC(2026, 10, 1);
  const mem = stores.db.prepare(`INSERT INTO memories (service, category, observation, confidence,
    base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier,
    next_decay_at, instance) VALUES (?, 'behavior', ?, ?, ?, 1, 0, ?, ?, ?, NULL, 1, ?, 'bench')`);
  const ev = stores.db.prepare(`INSERT INTO events (session_id, source, level, service, message,
    created_at, instance) VALUES (NULL, 'agent', 'info', ?, ?, ?, 'bench')`);
  for (let from = 0; from < ROWS; from += 5_000) {
    stores.db.transaction(() => {
      for (let i = from; i < Math.min(ROWS, from + 5_000); i += 1) {
        const c = 0.3 + (i % 70) / 100;
        mem.run(`svc-${i % 300}`, text(rng, i), c, c, at - i, at - i, at - i, at + 1e12);
        ev.run(`svc-${i % 300}`, `Event ${i}: ${text(rng, i)}`, at - i * 1000);
      }
    })();
    const rows = [];
    for (let id = from + 1; id <= Math.min(ROWS, from + 5_000); id += 1) {
      rows.push({ memoryId: id, vector: toBlob(randomVector(rng)) });
    }
    stores.search.putVectors(rows, MODEL, DIM, at);
  }
  // Fresh statistics, as autovacuum would have them on a database in use.
  if (target.startsWith('postgres')) stores.db.exec('ANALYZE');
  stores.close();
}

/** An embedder with seeded random vectors: the search's work without the model's. */
function randomEmbedder() {
  const rng = createRng(11).next;
  const embed = async (texts) => texts.map(() => randomVector(rng));
  return {
    backend: 'local',
    model: MODEL,
    dimension: DIM,
    embedQueries: embed,
    embedDocuments: embed,
    warmUp: async () => {},
    close: async () => {},
  };
}

async function searchLatency(target) {
  const stores = openStores(target, { instance: 'bench' });
  try {
    const knowledge = createKnowledge({
      stores,
      embedder: randomEmbedder(),
      clock: { now: () => Date.UTC(2026, 10, 1) },
    });
    await knowledge.search.prepare();
    const rng = createRng(3).next;
    const queries = Array.from({ length: 60 }, (_, i) => text(rng, i).split(':')[0]);
    for (const q of queries) await knowledge.search.search(q, { limit: 10 }); // warm
    const rank = [];
    for (const q of queries) rank.push((await knowledge.search.search(q, { limit: 10 })).rankMs);
    return { p50: percentile(rank, 50), p95: percentile(rank, 95) };
  } finally {
    stores.close();
  }
}

/**
 * With pgvector: how many of the exact first 10 the vector list finds over random queries, from
 * pgvector's HNSW index and, the baseline on the same vectors, from this process's own index
 * (its nearest 400 re-ranked exactly, as the search does without pgvector).
 */
async function vectorRecall(target) {
  const stores = openStores(target, { instance: 'bench' });
  try {
    const local = createAnnIndex(stores.search, MODEL, DIM, null);
    local.refresh();
    const rng = createRng(5).next;
    const queries = 30;
    const found = { pgvector: 0, local: 0 };
    for (let i = 0; i < queries; i += 1) {
      const q = randomVector(rng);
      const [listed, exact] = await Promise.all([
        // As the search asks: its 200 from the index's nearest 400.
        stores.search.nearestAwaited(q, MODEL, {}, 200, 400),
        stores.search.nearestAwaited(q, MODEL, {}, 10, null),
      ]);
      const coarse = local.candidates(q, 200, 400);
      const reranked = rankExact(q, stores.search.vectorsOf(coarse, MODEL), 10);
      const share = (hits) => {
        const top = new Set(hits.slice(0, 10).map((h) => h.memoryId));
        return exact.filter((h) => top.has(h.memoryId)).length / 10;
      };
      found.pgvector += share(listed);
      found.local += share(reranked);
    }
    return { pgvector: found.pgvector / queries, local: found.local / queries, queries };
  } finally {
    stores.close();
  }
}

/** A request to serve with the bench's token; a body is sent as JSON. */
const request = (base, path, init = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
  });

/**
 * prom-client samples the loop with a 10 ms timer (its eventLoopMonitoringPrecision) and records
 * each whole interval: an idle loop reads 10.2 ms at p99. The delay is what exceeds it.
 */
const LOOP_SAMPLE_MS = 10;

/** The serve process's event-loop delay since the last scrape (prom-client resets it). */
async function loopDelay(base) {
  const text = await (await request(base, '/metrics')).text();
  const seconds = (name) => Number(new RegExp(`^${name} ([\\d.e+-]+)`, 'm').exec(text)?.[1] ?? NaN);
  const delay = (name) => Math.max(0, seconds(name) * 1000 - LOOP_SAMPLE_MS);
  return {
    p99: delay('nodejs_eventloop_lag_p99_seconds'),
    max: delay('nodejs_eventloop_lag_max_seconds'),
  };
}

/** An API answer as JSON; an error answer throws with its body. */
const api = (base, path, init = {}) =>
  request(base, path, init).then(async (r) => {
    if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${await r.text()}`);
    return r.json();
  });

/**
 * The events page under load while a session ingests markers (started over the API, as a
 * user's script would): serve's event-loop delay meanwhile, and how long the ingest took.
 * `pages(url)` is the load: as fast as serve answers, or a dashboard's steady rate.
 */
async function ingestUnderLoad(base, pages) {
  const script = [];
  for (let i = 0; i < INGEST_STEPS; i += 1) {
    script.push(
      `say [EVENT:info:ingest-${i % 20}] ingest check ${i}`,
      `say [MEMORY:timing:ingest-${i % 20}] ingest-${i % 20} takes ${i} seconds to warm after deploy ${i}`,
      'pause 40',
    );
  }
  await loopDelay(base);
  const started = performance.now();
  const run = await api(base, '/api/v1/sessions', {
    method: 'POST',
    body: JSON.stringify({ prompt: script.join('\n'), tier: 1 }),
  });
  const r = await pages(`${base}/events`);
  const loop = await loopDelay(base);
  let session = null;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    const req = await api(base, `/api/v1/sessions/requests/${run.request_id}`);
    const id = req.session_ids[0];
    if (id !== undefined) {
      const s = await api(base, `/api/v1/sessions/${id}`);
      if (s.status !== 'running') {
        session = s;
        break;
      }
    } else if (req.state === 'failed') throw new Error(`the ingest run failed: ${req.error}`);
    await new Promise((res) => setTimeout(res, 200));
  }
  if (!session || session.status !== 'completed') {
    throw new Error(`the ingesting session did not complete: ${session?.status} ${session?.error}`);
  }
  const ingestS = (Date.parse(session.ended_at) - Date.parse(session.started_at)) / 1000;
  const { events } = await api(base, `/api/v1/events?session=${session.id}&limit=1000`);
  const said = events.filter((e) => e.message.startsWith('ingest check ')).length;
  if (said !== INGEST_STEPS) throw new Error(`${INGEST_STEPS} events said, ${said} stored`);
  return { ...r, loop, ingestS, wallS: (performance.now() - started) / 1000 };
}

/**
 * serve on a target (its seeded store), answering once it sees every seeded memory; `stop` ends
 * it. A failure names its cause and the end of serve's log.
 */
async function startServe(target, dataDir) {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    HOME: dataDir,
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_PORT: String(port),
    WATCHKEEPER_SCHEDULE: 'off',
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_LOG_LEVEL: 'warn',
    WATCHKEEPER_EMBEDDINGS: 'off',
    WATCHKEEPER_INSTANCE: 'bench',
    WATCHKEEPER_CLAUDE_BIN: FIXTURE_CLI,
    ...(target.startsWith('postgres') ? { WATCHKEEPER_DATABASE_URL: target } : {}),
  };
  const serve = spawn(process.execPath, [BIN, 'serve'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  serve.stderr.on('data', (d) => (log += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (serve.exitCode === null && serve.signalCode === null) {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('exit', r));
    }
  };
  const failed = (err) => {
    const exited = serve.exitCode !== null || serve.signalCode !== null;
    return new Error(
      `${err.message}${err.cause ? ` (${err.cause.message ?? err.cause})` : ''}${exited ? ` (serve exited: ${serve.exitCode ?? serve.signalCode})` : ''}; serve's log: ${log.slice(-1500)}`,
      { cause: err },
    );
  };
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await request(base, '/api/v1/health').then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline || serve.exitCode !== null) {
        throw new Error(`serve did not answer: ${log.slice(-500)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    // What is measured runs over the seeded rows, not an empty store.
    const { total } = await api(base, '/api/v1/memories?limit=1');
    if (total < ROWS) throw new Error(`serve sees ${total} memories, ${ROWS} were seeded`);
  } catch (err) {
    await stop();
    throw failed(err);
  }
  return { base, stop, failed };
}

/** Each page under load in turn, with serve's event-loop delay during each. */
async function pageRates(target, dataDir, tool, paths) {
  const serve = await startServe(target, dataDir);
  try {
    const out = {};
    for (const path of paths) {
      await loopDelay(serve.base); // starts the measurement afresh
      const r = await load(`${serve.base}${path}`, SECONDS, tool);
      out[path] = { ...r, loop: await loopDelay(serve.base) };
    }
    out.ingest = await ingestUnderLoad(serve.base, (url) => load(url, SECONDS, tool));
    out.ingestSteady = await ingestUnderLoad(serve.base, (url) =>
      steadyLoad(url, SECONDS, DASHBOARD_RATE),
    );
    return out;
  } catch (err) {
    throw serve.failed(err);
  } finally {
    await serve.stop();
  }
}

/** The median time of one `SELECT 1` from this process: the round trip a statement pays. */
function roundTripMs(target) {
  const stores = openStores(target, { instance: 'bench' });
  try {
    const one = stores.db.prepare('SELECT 1 AS n');
    const times = [];
    for (let i = 0; i < 200; i += 1) {
      const t = performance.now();
      one.get();
      times.push(performance.now() - t);
    }
    return percentile(times, 50);
  } finally {
    stores.close();
  }
}

function reinforcementsIn(target) {
  const stores = openStores(target, { instance: 'bench' });
  try {
    return stores.db
      .prepare("SELECT COUNT(*) AS n FROM memory_history WHERE action = 'reinforced'")
      .get().n;
  } finally {
    stores.close();
  }
}

/** The 50 memories both writers re-observe: each one's service, category and text. */
function reobserved(target) {
  const stores = openStores(target, { instance: 'bench' });
  try {
    return stores.db
      .prepare('SELECT service, category, observation FROM memories WHERE id <= 50 ORDER BY id')
      .all();
  } finally {
    stores.close();
  }
}

/**
 * Re-observations through the API, as sessions' markers and scripts make them: `serves` serve
 * processes of the instance, each sent WRITERS requests at a time that say again what one of
 * the 50 memories says (POST /api/v1/memories, answered 200 `reinforced`), for
 * REINFORCE_SECONDS. Every answer is counted, and must be a reinforcement the history holds.
 */
async function reinforcement(target, dir, name, serves) {
  const bodies = reobserved(target).map((m) => JSON.stringify(m));
  const started = [];
  // A SQLite store is one sidecar's (serve holds its data folder): its one serve is sent both
  // processes' requests.
  const sqlite = !target.startsWith('postgres');
  try {
    for (let i = 0; i < (sqlite ? 1 : serves); i += 1) {
      const dataDir = sqlite ? dirname(target) : join(dir, `reinforce-${name}-${serves}-${i}`);
      started.push(await startServe(target, dataDir));
    }
    const before = reinforcementsIn(target);
    const until = Date.now() + REINFORCE_SECONDS * 1000;
    const answers = new Map();
    let n = 0;
    const writer = async (base) => {
      while (Date.now() < until) {
        const body = bodies[n++ % bodies.length];
        const res = await request(base, '/api/v1/memories', { method: 'POST', body });
        const { action } = await res.json().catch(() => ({}));
        const key = `${res.status} ${action ?? ''}`;
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
    };
    const base = (i) => started[i % started.length].base;
    await Promise.all(Array.from({ length: serves * WRITERS }, (_, i) => writer(base(i))));
    const reported = answers.get('200 reinforced') ?? 0;
    if (answers.size !== 1 || reported === 0) {
      const err = new Error(`re-observations not all reinforced: ${JSON.stringify([...answers])}`);
      throw started.reduce((e, s) => s.failed(e), err);
    }
    return {
      perSecond: reported / REINFORCE_SECONDS,
      reported,
      recorded: reinforcementsIn(target) - before,
    };
  } finally {
    for (const s of started) await s.stop();
  }
}

export async function runFleetBench(ctx) {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-fleet-'));
  const server = await startPostgres();
  const proxies = [];
  try {
    const sqlite = join(dir, 'sqlite', 'watchkeeper.db');
    const postgres = await server.database('wk_bench_fleet');
    for (const [name, target] of [
      ['SQLite', sqlite],
      ['PostgreSQL', postgres],
    ]) {
      const t0 = performance.now();
      seed(target);
      ctx.log(
        `${name}: ${ROWS} memories, events and vectors in ${round((performance.now() - t0) / 1000, 1)} s`,
      );
    }
    /** [name, target, round trip in ms or null]: SQLite, PostgreSQL, and it behind each delay. */
    const targets = [
      ['sqlite', sqlite, null],
      ['postgres', postgres, roundTripMs(postgres)],
    ];
    for (const delay of DELAYS) {
      const proxy = await startDelayProxy(postgres, delay);
      proxies.push(proxy);
      targets.push([`postgres+${delay}ms`, proxy.url, roundTripMs(proxy.url)]);
    }
    const hop = (name) => {
      const rtt = targets.find((t) => t[0] === name)?.[2];
      return typeof rtt === 'number' ? `; round trip ${round(rtt, 2)} ms` : '';
    };
    const vsSqlite = (name, value, base) =>
      name === 'sqlite' ? '' : `; ${round(value / base, 2)}x SQLite`;

    const tool = (await hasWrk()) ? 'wrk' : 'autocannon';
    const paths = ['/memories', '/events'];
    const pages = {};
    for (const [name, target] of targets) {
      ctx.log(`memories and events pages on ${name} (${tool}, ${SECONDS} s each)`);
      // serve on SQLite reads the seeded file from its data folder; on PostgreSQL, the URL.
      const dataDir = name === 'sqlite' ? dirname(target) : join(dir, `serve-${name}`);
      pages[name] = await pageRates(target, dataDir, tool, paths);
      // A request the load tool gave up on (2 s) is a figure of a slow database, reported
      // below; an error answer or a broken connection is a fault.
      for (const path of paths) {
        const r = pages[name][path];
        if (r.bad > r.timeouts) {
          throw new Error(`${r.bad - r.timeouts} bad answers on ${name}${path}`);
        }
      }
    }
    for (const path of paths) {
      const page = path.slice(1);
      for (const [name] of targets) {
        const r = pages[name][path];
        const timedOut = r.timeouts ? ` (${r.timeouts} requests timed out at 2 s)` : '';
        ctx.add({
          name: `fleet.${page}_page.${name}.rps`,
          value: round(r.rps, 0),
          unit: 'req/s',
          notes: `first page of ${ROWS} ${page}, 32 connections (${tool}); p50 ${round(r.p50, 1)} ms, p99 ${round(r.p99, 1)} ms${timedOut}; serve's event loop delayed p99 ${round(r.loop.p99, 1)} ms, max ${round(r.loop.max, 1)} ms${vsSqlite(name, r.rps, pages.sqlite[path].rps)}${hop(name)}`,
        });
      }
    }

    for (const [key, label] of [
      ['ingest', 'ingest_under_load'],
      ['ingestSteady', 'ingest_dashboard_load'],
    ]) {
      for (const [name] of targets) {
        const r = pages[name][key];
        const load =
          key === 'ingest'
            ? 'the events page is under load (as fast as serve answers)'
            : `the events page is asked ${DASHBOARD_RATE} times a second (open dashboards)`;
        ctx.add({
          name: `fleet.${label}.${name}.loop_p99_ms`,
          value: round(r.loop.p99, 1),
          unit: 'ms',
          notes: `serve's event-loop delay (p99; max ${round(r.loop.max, 1)} ms) while a session ingests ${INGEST_STEPS} events and ${INGEST_STEPS} memories (its CLI pausing 40 ms after each pair, ${round(r.ingestS, 1)} s from start to end) and ${load}: ${round(r.rps, 0)} req/s, p99 ${round(r.p99, 1)} ms${hop(name)}`,
        });
      }
    }

    const search = {};
    for (const [name, target] of targets) {
      ctx.log(`search on ${name}`);
      search[name] = await searchLatency(target);
    }
    // With pgvector, where the server can install it: the same memories in a database that has
    // the extension (the vector list is then PostgreSQL's), directly and behind each delay.
    const vectorTargets = [];
    if (await server.hasExtension('vector')) {
      const url = await server.database('wk_bench_fleet_pgvector', ['vector']);
      const t0 = performance.now();
      seed(url);
      ctx.log(
        `PostgreSQL with pgvector: ${ROWS} memories, events and vectors in ${round((performance.now() - t0) / 1000, 1)} s`,
      );
      vectorTargets.push(['pgvector', url, roundTripMs(url)]);
      for (const delay of DELAYS) {
        const proxy = await startDelayProxy(url, delay);
        proxies.push(proxy);
        vectorTargets.push([`pgvector+${delay}ms`, proxy.url, roundTripMs(proxy.url)]);
      }
      targets.push(...vectorTargets);
      for (const [name, target] of vectorTargets) {
        ctx.log(`search on ${name}`);
        search[name] = await searchLatency(target);
      }
      const recall = await vectorRecall(url);
      const over = `${recall.queries} random queries over ${ROWS} random vectors of ${DIM} dimensions, the hardest case for a graph index`;
      ctx.add({
        name: 'fleet.search.pgvector.vector_recall@10',
        value: round(recall.pgvector, 3),
        unit: 'recall',
        notes: `the vector list's first 10 from pgvector's HNSW index (searched 400 wide, as the search asks) against every vector compared exactly in the same database (${over})`,
      });
      ctx.add({
        name: 'fleet.search.local_index.vector_recall@10',
        value: round(recall.local, 3),
        unit: 'recall',
        notes: `the baseline: the same from this process's own index (usearch, its nearest 400 re-ranked exactly, the search without pgvector) over the same vectors (${over})`,
      });
    } else {
      ctx.log('the PostgreSQL server has no pgvector: search is measured without it only');
    }
    for (const [name] of [...targets]) {
      const s = search[name];
      ctx.add({
        name: `fleet.search.${name}.rank_ms`,
        value: round(s.p50, 2),
        unit: 'ms',
        notes: `median ranking over ${ROWS} memories with vectors, p95 ${round(s.p95, 2)} ms${vsSqlite(name, s.p50, search.sqlite.p50)}${hop(name)}`,
      });
    }

    for (const [name, target] of targets.filter(([n]) => !n.startsWith('pgvector'))) {
      const alone = name === 'sqlite' || name === 'postgres';
      ctx.log(
        `reinforcement through the API on ${name}: ${alone ? 'one serve, then ' : ''}two at once`,
      );
      const one = alone ? await reinforcement(target, dir, name, 1) : null;
      const two = await reinforcement(target, dir, name, 2);
      for (const r of [one, two]) {
        if (r && r.recorded !== r.reported) {
          throw new Error(`${name}: ${r.reported} reinforcements answered, ${r.recorded} recorded`);
        }
      }
      ctx.add({
        name: `fleet.reinforce.${name}.two_instances_per_s`,
        value: round(two.perSecond, 0),
        unit: '/s',
        notes: `${name === 'sqlite' ? 'one serve (a SQLite store is one sidecar’s) sent the requests of two' : 'two serve processes'} re-observing the same 50 memories over the API (POST /api/v1/memories, ${WRITERS} requests at a time each), every one answered reinforced and counted in the history (${two.recorded} in ${REINFORCE_SECONDS} s)${one ? `; one alone: ${round(one.perSecond, 0)}/s` : ''}${hop(name)}`,
      });
    }
  } finally {
    for (const p of proxies) await p.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
