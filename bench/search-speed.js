/**
 * Speed of the one search (npm run bench -- --only search-speed), with the real local model and
 * the real store at 10,000 and 100,000 memories:
 *
 * - search: query embedding and ranking, median and p95, reported apart;
 * - the vector pass (bench/vector-index.js): recall@10 against an exact scan of every vector, of
 *   the HNSW index the search uses and of the sign-bit scan it replaced, timed in the same run;
 *   the index's build from the stored vectors and its load from its file;
 * - a session's memory block built for an alert (`context --query`) at 100,000;
 * - the PostToolUse hook's answer over loopback HTTP, median and p95;
 * - reindex: measured on 2,000 memories, projected to 100,000 (the model's rate is linear);
 *
 * (The model's own throughput and RSS are the embeddings part's.)
 *
 * Memory texts are the ops set's and LoCoMo's turns with a variant suffix; each vector mixes the
 * real embedding of its base text with two other real embeddings at random weights, so that the
 * 100,000 vectors are distinct and spread like real ones (embedding 100,000 texts would take
 * most of an hour here and measure the model, not the search).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import { createKnowledge } from '../dist/knowledge/index.js';
import { normalise, toBlob } from '../dist/memory/index.js';
import { silentLogger } from '../dist/log.js';
import { createHookServer } from '../dist/runner/hook-server.js';
import { withLocalEmbedder } from './local-embedder.js';
import { createRng } from './prng.js';
import { round } from './stats.js';
import { tempStores } from './temp-store.js';
import { measureIndexBuild, measureVectorPass } from './vector-index.js';

const OPS = new URL('./data/ops-retrieval.json', import.meta.url);
const LOCOMO = new URL('../../shared/bench-data/locomo10.json', import.meta.url);
const SERVICES = 60;
const BASE_TEXTS = 1500;
const QUERIES = 60;

function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function baseTexts(ops) {
  const texts = ops.memories.map((m) => m.observation);
  try {
    const locomo = JSON.parse(readFileSync(LOCOMO, 'utf8'));
    for (const c of locomo) {
      for (const [key, turns] of Object.entries(c.conversation)) {
        if (!/^session_\d+$/.test(key)) continue;
        for (const t of turns) if (texts.length < BASE_TEXTS) texts.push(t.text);
      }
    }
  } catch {
    // Without LoCoMo the ops texts alone are the base.
  }
  return texts;
}

async function buildStore(ctx, n, base, vectors, rng) {
  const store = tempStores('wk-bench-speed-');
  const { stores } = store;
  const clock = { now: () => Date.UTC(2026, 10, 1) };
  const at = clock.now();
  const started = performance.now();
  const insert = stores.db.transaction((from, to) => {
    for (let i = from; i < to; i += 1) {
      const b = i % base.length;
      stores.memories.create({
        service: `svc-${i % SERVICES}`,
        category: 'behavior',
        observation: `${base[b]} (variant ${i})`,
        confidence: 0.3 + rng() * 0.7,
        sessionId: null,
        tier: 1,
        at: at - Math.floor(rng() * 120) * 86_400_000,
        nextDecayAt: at + 1e12,
      });
    }
  });
  for (let i = 0; i < n; i += 10_000) insert(i, Math.min(n, i + 10_000));
  const dim = vectors[0].length;
  for (let i = 0; i < n; i += 5_000) {
    const rows = [];
    for (let j = i; j < Math.min(n, i + 5_000); j += 1) {
      const a = vectors[j % base.length];
      const b = vectors[Math.floor(rng() * base.length)];
      const c = vectors[Math.floor(rng() * base.length)];
      const wb = rng() * 0.6;
      const wc = rng() * 0.4;
      const mixed = new Float32Array(dim);
      for (let k = 0; k < dim; k += 1) mixed[k] = a[k] + wb * b[k] + wc * c[k];
      rows.push({ memoryId: j + 1, vector: toBlob(normalise(mixed)) });
    }
    stores.search.putVectors(rows, 'use-lite-512', dim, at);
  }
  ctx.log(
    `${n} memories with vectors stored in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { ...store, clock };
}

async function measureSearch(ctx, n, embedder, base, vectors, queries, rng) {
  const store = await buildStore(ctx, n, base, vectors, rng);
  try {
    measureIndexBuild(ctx, n, store, embedder);
    const knowledge = createKnowledge({ stores: store.stores, embedder, clock: store.clock });
    await knowledge.search.prepare();
    const embed = [];
    const rank = [];
    for (const q of queries) await knowledge.search.search(q, { limit: 10 }); // warm
    for (const q of queries) {
      const a = await knowledge.search.search(q, { limit: 10 });
      embed.push(a.embedMs);
      rank.push(a.rankMs);
    }
    ctx.add({
      name: `search.${n / 1000}k.rank_ms`,
      value: round(percentile(rank, 50), 2),
      unit: 'ms',
      notes: `median ranking (BM25 + vectors + fusion + weights), p95 ${round(percentile(rank, 95), 2)} ms; query embedding median ${round(percentile(embed, 50), 1)} ms, p95 ${round(percentile(embed, 95), 1)} ms (target: ranking <= 10 ms median at 100k)`,
    });

    await measureVectorPass(ctx, n, store.stores, embedder, queries.slice(0, 30));

    if (n >= 100_000) {
      const ctxMs = [];
      for (const q of queries.slice(0, 20)) {
        const t0 = performance.now();
        await knowledge.injection.build({ trigger: `ALERT: ${q}` }, 2000);
        ctxMs.push(performance.now() - t0);
      }
      ctx.add({
        name: 'search.100k.context_query_ms',
        value: round(percentile(ctxMs, 50), 1),
        unit: 'ms',
        notes: `a session's memory block for an alert (decay, pinned, search, confident fill, 2,000 tokens), warm model; p95 ${round(percentile(ctxMs, 95), 1)} ms (target <= 50 ms)`,
      });

      const hooks = createHookServer({ tools: knowledge.tools, log: silentLogger });
      const sessionId = store.stores.sessions.start({
        trigger: 'manual',
        tier: 1,
        model: 'haiku',
        prompt: 'bench',
        parentSessionId: null,
        startedAt: store.clock.now(),
        simulated: true,
      });
      const reg = await hooks.register(sessionId);
      const hookMs = [];
      for (const [i, q] of queries.entries()) {
        const body = JSON.stringify({
          session_id: 'bench',
          hook_event_name: 'PostToolUse',
          tool_name: 'Bash',
          tool_input: { command: `curl -s http://svc-${i % SERVICES}/health # ${q}` },
          tool_response: { stdout: 'HTTP/1.1 502 Bad Gateway', stderr: '' },
        });
        const t0 = performance.now();
        const res = await fetch(reg.url, {
          method: 'POST',
          headers: { authorization: `Bearer ${reg.token}`, 'content-type': 'application/json' },
          body,
        });
        await res.text();
        hookMs.push(performance.now() - t0);
      }
      reg.release();
      await hooks.close();
      ctx.add({
        name: 'search.100k.hook_answer_ms',
        value: round(percentile(hookMs, 50), 1),
        unit: 'ms',
        notes: `PostToolUse hook over loopback HTTP, ${hookMs.length} tool calls; p95 ${round(percentile(hookMs, 95), 1)} ms (target: p95 <= 100 ms)`,
      });
    }
  } finally {
    store.close();
  }
}

async function measureReindex(ctx, embedder, base) {
  const store = tempStores('wk-bench-reindex-');
  const { stores } = store;
  try {
    const clock = { now: () => Date.now() };
    const n = 2000;
    const at = clock.now();
    stores.db.transaction(() => {
      for (let i = 0; i < n; i += 1) {
        stores.memories.create({
          service: `svc-${i % SERVICES}`,
          category: 'behavior',
          observation: `${base[i % base.length]} (variant ${i})`,
          confidence: 0.7,
          sessionId: null,
          tier: 1,
          at,
          nextDecayAt: at + 1e12,
        });
      }
    })();
    const knowledge = createKnowledge({ stores, embedder, clock });
    const t0 = performance.now();
    await knowledge.pending.reindex(true);
    const ms = performance.now() - t0;
    const perSecond = n / (ms / 1000);
    ctx.add({
      name: 'search.reindex_per_s',
      value: round(perSecond, 1),
      unit: 'memories/s',
      notes: `reindex of ${n} memories took ${round(ms / 1000, 1)} s: 100,000 would take about ${round(100_000 / perSecond / 60, 1)} min at this rate (batches of 32, one model thread)`,
    });
  } finally {
    store.close();
  }
}

export async function runSearchSpeedBench(ctx) {
  const ops = JSON.parse(readFileSync(OPS, 'utf8'));
  const base = baseTexts(ops);
  await withLocalEmbedder(async (embedder) => {
    ctx.log(`embedding ${base.length} base texts...`);
    const vectors = [];
    for (let i = 0; i < base.length; i += 64)
      vectors.push(...(await embedder.embedDocuments(base.slice(i, i + 64))));
    const queries = ops.queries.slice(0, QUERIES).map((q) => q.query);
    const rng = createRng(7).next;
    for (const n of [10_000, 100_000])
      await measureSearch(ctx, n, embedder, base, vectors, queries, rng);
    await measureReindex(ctx, embedder, base);
  });
}
