/**
 * The memory graph (npm run bench -- --only graph):
 *
 * - LoCoMo (../shared/bench-data/locomo10.json) indexed as ten conversations, each written as a
 *   Claude Code transcript (speaker A the user, speaker B the assistant, one line per turn, the
 *   sessions' dates as timestamps): turn-evidence recall@5 and @10 of `graph remember` for the
 *   QA questions, beside plain BM25 over the same turns measured in the same run (the protocol of
 *   the memory landscape note, section 3.4: every turn a document, speaker + text + photo caption,
 *   lowercase [a-z0-9]+ tokens, k1 1.2, b 0.75, the raw question as the query), overall and per
 *   category; evidence ids corrected by the audit file where it says the citation is wrong.
 * - The share of questions with an evidence turn inside a 500- and a 1,000-token answer.
 * - Index throughput in lines per second: offline rules (with the local embedding model), and
 *   with the model's jobs through the real gateway against the simulated model.
 * - The Stop hook's return time (`watchkeeper graph hook stop`, a real process), with no serve
 *   (it starts a detached indexer) and with serve running (it hands the transcript to it).
 * - remember latency, median and p95, at 10,000 and 100,000 ideas (no HyDE).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

import { openStores } from '../dist/db/index.js';
import { createEmbedder } from '../dist/embed/index.js';
import { createAnthropicBackend } from '../dist/gateway/anthropic-backend.js';
import { createGateway } from '../dist/gateway/index.js';
import { createGraph, gatewayModel } from '../dist/graph/index.js';
import { createEmbedding } from '../dist/knowledge/embedding.js';
import { normalise, toBlob } from '../dist/memory/index.js';
import { gatewayScript } from '../dist/sim/gateway-jobs.js';
import { startSimulatedModel } from '../dist/sim/messages-api.js';
import { CATEGORIES, loadLocomo, questions, turnText, writeTranscripts } from './locomo.js';
import { createRng } from './prng.js';
import { median, round } from './stats.js';

const BIN = fileURLToPath(new URL('../bin/watchkeeper.js', import.meta.url));

function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Okapi BM25 over one conversation's turns (the note's protocol, no stop words removed). */
function bm25Index(turns) {
  const tokens = (s) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const docs = turns.map((t) => tokens(t.text));
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length;
  const df = new Map();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const tf = docs.map((d) => {
    const m = new Map();
    for (const w of d) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  });
  const N = docs.length;
  return (query, k) => {
    const q = tokens(query);
    const scores = docs.map((d, i) => {
      let s = 0;
      for (const w of q) {
        const f = tf[i].get(w);
        if (!f) continue;
        const n = df.get(w);
        const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.length) / avg));
      }
      return { i, s };
    });
    return scores
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, k)
      .map((x) => turns[x.i].dia);
  };
}

const recall = (found, gold) => gold.filter((g) => found.includes(g)).length / gold.length;

async function locomoPart(ctx, embedder, locomo, audit) {
  const dir = mkdtempSync(join(tmpdir(), 'wk-bench-graph-'));
  const stores = openStores(join(dir, 'watchkeeper.db'));
  try {
    const convs = writeTranscripts(locomo, join(dir, 'projects'));
    const clock = { now: () => Date.UTC(2024, 0, 1) };
    const embedding = createEmbedding({ embedder, events: stores.events, clock });
    const graph = createGraph({ db: stores.db, embedding, clock, dataDir: dir });
    const totalLines = convs.reduce((n, c) => n + c.lines, 0);
    const t0 = performance.now();
    for (const c of convs) await graph.index(c.file);
    const indexMs = performance.now() - t0;
    const stats = graph.stats();
    // The rules alone, without embeddings: what the pipeline costs apart from the model.
    const bare = openStores(join(dir, 'rules.db'));
    try {
      const rules = createGraph({
        db: bare.db,
        embedding: createEmbedding({ embedder: null, events: bare.events, clock }),
        clock,
        dataDir: dir,
      });
      const r0 = performance.now();
      for (const c of convs) await rules.index(c.file);
      const rulesMs = performance.now() - r0;
      ctx.add({
        name: 'graph.index.rules_only_lines_per_s',
        value: round(totalLines / (rulesMs / 1000), 1),
        unit: 'lines/s',
        notes: `LoCoMo, ${totalLines} lines in ${round(rulesMs / 1000, 1)} s with embeddings off (extraction, topics, relations, full text)`,
      });
    } finally {
      bare.close();
    }
    ctx.add({
      name: 'graph.index.offline_lines_per_s',
      value: round(totalLines / (indexMs / 1000), 1),
      unit: 'lines/s',
      notes: `LoCoMo, ${totalLines} lines in ${round(indexMs / 1000, 1)} s (rules + local embeddings): ${stats.ideas} ideas, ${stats.topics} topics, ${stats.spans} spans, ${stats.entities} entities, ${stats.relations} relations`,
    });

    const perCat = new Map();
    const add = (cat, key, v) => {
      const m = perCat.get(cat) ?? {};
      m[key] = (m[key] ?? 0) + v;
      perCat.set(cat, m);
    };
    const latencies = [];
    for (const c of convs) {
      const bm25 = bm25Index(c.turns);
      for (const q of questions(c, audit)) {
        const started = performance.now();
        const answer = await graph.remember(q.question, { budget: 1000, sessions: [c.session] });
        latencies.push(performance.now() - started);
        const dias = [];
        for (const r of answer.ranked) {
          const dia = c.diaOfLine.get(r.idea.sourceLine);
          if (dia && !dias.includes(dia)) dias.push(dia);
        }
        const small = await graph.remember(q.question, { budget: 500, sessions: [c.session] });
        const inside = (a) =>
          new Set(a.groups.flatMap((g) => g.ideas.map((i) => c.diaOfLine.get(i.idea.sourceLine))));
        const in1000 = inside(answer);
        const in500 = inside(small);
        const base = bm25(q.question, 10);
        for (const cat of [q.category, 'all', q.category <= 4 ? '1-4' : null]) {
          if (cat === null) continue;
          add(cat, 'n', 1);
          add(cat, 'g5', recall(dias.slice(0, 5), q.gold));
          add(cat, 'g10', recall(dias.slice(0, 10), q.gold));
          add(cat, 'b5', recall(base.slice(0, 5), q.gold));
          add(cat, 'b10', recall(base, q.gold));
          add(cat, 'in500', q.gold.some((g) => in500.has(g)) ? 1 : 0);
          add(cat, 'in1000', q.gold.some((g) => in1000.has(g)) ? 1 : 0);
        }
      }
    }
    for (const cat of ['1-4', 'all', 1, 2, 3, 4, 5]) {
      const m = perCat.get(cat);
      if (!m) continue;
      const label =
        typeof cat === 'number' ? `${cat}-${CATEGORIES[cat]}` : cat === 'all' ? 'all' : 'cat1-4';
      const r = (k) => round(m[k] / m.n, 3);
      ctx.add({
        name: `graph.locomo.${label}.recall@10`,
        value: r('g10'),
        unit: 'recall',
        notes: `${m.n} questions; remember recall@5 ${r('g5')}; BM25 over turns @5 ${r('b5')}, @10 ${r('b10')}; evidence inside 500 tokens ${round((100 * m.in500) / m.n, 1)}%, 1,000 tokens ${round((100 * m.in1000) / m.n, 1)}%`,
      });
    }
    ctx.add({
      name: 'graph.locomo.remember_ms.median',
      value: round(median(latencies), 1),
      unit: 'ms',
      notes: `p95 ${round(percentile(latencies, 95), 1)} ms; ${stats.ideas} ideas in the store`,
    });
    return convs;
  } finally {
    stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function gatewayThroughput(ctx, embedder, locomo) {
  const dir = mkdtempSync(join(tmpdir(), 'wk-bench-graph-gw-'));
  const stores = openStores(join(dir, 'watchkeeper.db'));
  const sim = await startSimulatedModel(gatewayScript, { keepRequests: 0 });
  const clock = { now: () => Date.now() };
  const gateway = createGateway({
    config: {
      backend: 'anthropic',
      offReason: null,
      url: sim.url,
      key: 'bench',
      models: { gate: 'haiku', extract: 'sonnet', summary: 'sonnet' },
      timeoutMs: 30_000,
      concurrency: 4,
      retries: 0,
      dailyBudgetUsd: 0,
    },
    backend: createAnthropicBackend({ url: sim.url, key: 'bench' }),
    jobs: stores.gatewayJobs,
    events: stores.events,
    clock,
  });
  try {
    const convs = writeTranscripts(locomo.slice(0, 2), join(dir, 'projects'));
    const embedding = createEmbedding({ embedder, events: stores.events, clock });
    const graph = createGraph({
      db: stores.db,
      embedding,
      clock,
      dataDir: dir,
      model: gatewayModel(gateway),
    });
    const lines = convs.reduce((n, c) => n + c.lines, 0);
    const t0 = performance.now();
    for (const c of convs) await graph.index(c.file);
    const ms = performance.now() - t0;
    const jobs = stores.gatewayJobs.list({ limit: 100_000 });
    ctx.add({
      name: 'graph.index.sim_gateway_lines_per_s',
      value: round(lines / (ms / 1000), 1),
      unit: 'lines/s',
      notes: `2 LoCoMo conversations, ${lines} lines; ${jobs.length} gateway jobs (${jobs.filter((j) => j.outcome === 'ok').length} ok) against the simulated model over HTTP`,
    });
  } finally {
    gateway.close();
    await sim.close();
    stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function runHook(input, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'graph', 'hook', 'stop'], {
      env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - started));
    child.stdin.end(JSON.stringify(input));
  });
}

async function hookTime(ctx, locomo) {
  const dir = mkdtempSync(join(tmpdir(), 'wk-bench-hook-'));
  try {
    const file = writeTranscripts(locomo.slice(0, 1), dir)[0].file;
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      WATCHKEEPER_DATA_DIR: join(dir, 'data'),
      WATCHKEEPER_EMBEDDINGS: 'off',
    };
    const locks = join(dir, 'data', 'graph-locks');
    // One hook per turn, turns seconds apart: each run starts once the indexer the last one
    // started is done (otherwise the runs measure the indexers' CPU on two cores, not the hook).
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 600 && existsSync(locks) && locksHeld(locks); i += 1) {
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const times = [];
    const bare = [];
    for (let i = 0; i < 20; i += 1) {
      await settle();
      const started = performance.now();
      await new Promise((resolve) =>
        spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('exit', resolve),
      );
      bare.push(performance.now() - started);
      await settle();
      const input = {
        hook_event_name: 'Stop',
        transcript_path: file,
        last_assistant_message: 'done',
      };
      times.push(await runHook(input, env));
    }
    await settle();
    ctx.add({
      name: 'graph.stop_hook_ms.median',
      value: round(median(times), 1),
      unit: 'ms',
      notes: `p95 ${round(percentile(times, 95), 1)} ms over ${times.length} runs of \`watchkeeper graph hook stop\` with no serve (process start to exit; the indexer it starts runs detached); a bare \`node -e 0\` takes ${round(median(bare), 1)} ms here (target < 100 ms)`,
    });
    // With serve running on the data folder: the hook hands the transcript to it over loopback.
    const serve = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...env, WATCHKEEPER_PORT: '0', WATCHKEEPER_SCHEDULE: 'off' },
      stdio: 'ignore',
    });
    const exited = new Promise((r) => serve.once('exit', r));
    try {
      const endpoint = join(dir, 'data', 'serve-endpoint.json');
      for (let i = 0; i < 300 && !existsSync(endpoint); i += 1) {
        await new Promise((r) => setTimeout(r, 100));
      }
      if (!existsSync(endpoint)) throw new Error('serve did not write its endpoint file');
      const served = [];
      for (let i = 0; i < 20; i += 1) {
        await new Promise((r) => setTimeout(r, 300));
        served.push(
          await runHook(
            { hook_event_name: 'Stop', transcript_path: file, last_assistant_message: 'done' },
            env,
          ),
        );
      }
      ctx.add({
        name: 'graph.stop_hook_ms.serve.median',
        value: round(median(served), 1),
        unit: 'ms',
        notes: `p95 ${round(percentile(served, 95), 1)} ms over ${served.length} runs with \`watchkeeper serve\` running on the data folder (the hook posts the transcript to it; target < 100 ms)`,
      });
    } finally {
      serve.kill('SIGTERM');
      await exited;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function locksHeld(lockDir) {
  return readdirSync(lockDir).some((f) => f.endsWith('.lock'));
}

/** A graph of `n` ideas: LoCoMo turns as ideas, 20 to a span, vectors mixed from real ones. */
async function syntheticGraph(ctx, n, base, vectors, embedder, rng) {
  const dir = mkdtempSync(join(tmpdir(), 'wk-bench-graph-speed-'));
  const stores = openStores(join(dir, 'watchkeeper.db'));
  const clock = { now: () => Date.UTC(2026, 10, 1) };
  const embedding = createEmbedding({ embedder, events: stores.events, clock });
  const graph = createGraph({ db: stores.db, embedding, clock, dataDir: dir });
  const { rows, search } = graph.stores;
  const dim = vectors[0].length;
  const intents = [
    'context',
    'context',
    'context',
    'decision',
    'question',
    'problem',
    'solution',
    'conclusion',
    'todo',
  ];
  const started = performance.now();
  const insert = stores.db.transaction((from, to) => {
    const ideaVectors = [];
    let span = 0;
    for (let i = from; i < to; i += 1) {
      const session = `s-${Math.floor(i / 100)}`;
      const at = clock.now() - (n - i) * 60_000;
      if (i % 20 === 0) {
        span = rows.insertSpan({
          session,
          parentId: null,
          name: `topic ${i / 20}`,
          summary: base[i % base.length],
          sourceFile: `/bench/${session}.jsonl`,
          startLine: i % 100,
          endLine: (i % 100) + 19,
          depth: 0,
          createdAt: at,
          endedAt: at,
        });
      }
      const b = i % base.length;
      const id = rows.insertIdea({
        spanId: span,
        session,
        content: `${base[b]} (variant ${i})`,
        intent: intents[i % intents.length],
        confidence: 0.3 + rng.next() * 0.7,
        answered: i % intents.length === 4 ? false : null,
        role: i % 2 ? 'assistant' : 'user',
        sourceFile: `/bench/${session}.jsonl`,
        sourceLine: i % 100,
        createdAt: at,
      });
      const a = vectors[b];
      const v2 = vectors[Math.floor(rng.next() * base.length)];
      const wb = rng.next() * 0.6;
      const mixed = new Float32Array(dim);
      for (let k = 0; k < dim; k += 1) mixed[k] = a[k] + wb * v2[k];
      ideaVectors.push({ id, vector: toBlob(normalise(mixed)) });
    }
    search.putIdeaVectors(ideaVectors, embedder.model, dim, clock.now());
  });
  for (let i = 0; i < n; i += 10_000) insert(i, Math.min(n, i + 10_000));
  await graph.embedPending();
  ctx.log(`${n} ideas stored in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return {
    graph,
    close: () => {
      stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function rememberSpeed(ctx, embedder, locomo) {
  const rng = createRng(10);
  const base = [];
  for (const c of locomo) {
    for (const [key, turns] of Object.entries(c.conversation)) {
      if (!/^session_\d+$/.test(key) || !Array.isArray(turns)) continue;
      for (const t of turns) if (base.length < 1500) base.push(turnText(t));
    }
  }
  const vectors = [];
  for (let i = 0; i < base.length; i += 64)
    vectors.push(...(await embedder.embedDocuments(base.slice(i, i + 64))));
  const queries = locomo
    .flatMap((c) => c.qa.map((q) => q.question))
    .filter((_, i) => i % 25 === 0)
    .slice(0, 60);
  for (const n of [10_000, 100_000]) {
    const g = await syntheticGraph(ctx, n, base, vectors, embedder, rng);
    try {
      await g.graph.prepare();
      for (const q of queries.slice(0, 5)) await g.graph.remember(q);
      const times = [];
      for (const q of queries) {
        const t0 = performance.now();
        await g.graph.remember(q, { hyde: false });
        times.push(performance.now() - t0);
      }
      ctx.add({
        name: `graph.remember_ms.${n / 1000}k.median`,
        value: round(median(times), 1),
        unit: 'ms',
        notes: `p95 ${round(percentile(times, 95), 1)} ms; ${queries.length} LoCoMo questions, no HyDE, query embedding included${n === 100_000 ? ' (target < 150 ms median)' : ''}`,
      });
    } finally {
      g.close();
    }
  }
}

export async function runGraphBench(ctx) {
  const data = loadLocomo();
  if (!data) {
    ctx.log('LoCoMo not found beside the repo (../shared/bench-data): skipped');
    return;
  }
  const { locomo, audit } = data;
  const embedder = createEmbedder({
    backend: 'local',
    url: null,
    model: null,
    key: null,
    timeoutMs: 120_000,
  });
  try {
    await embedder.warmUp();
    // GRAPH_BENCH_PARTS=locomo,hook runs some parts only (while tuning).
    const only = (process.env.GRAPH_BENCH_PARTS ?? 'locomo,gateway,hook,speed').split(',');
    if (only.includes('locomo')) await locomoPart(ctx, embedder, locomo, audit);
    if (only.includes('gateway')) await gatewayThroughput(ctx, embedder, locomo);
    if (only.includes('hook')) await hookTime(ctx, locomo);
    if (only.includes('speed')) await rememberSpeed(ctx, embedder, locomo);
  } finally {
    await embedder.close();
  }
}
