/**
 * Retrieval quality of the one search (npm run bench -- --only search-quality), with the real
 * local model (Universal Sentence Encoder lite) and the real store:
 *
 * - the ops set (bench/data/ops-retrieval.json): MRR and recall@5 for BM25 alone, vectors alone,
 *   hybrid without and with service descriptions; how many targets clear the surfacing
 *   threshold, and how many unrelated queries (LoCoMo chit-chat) surface anything at all;
 * - dedup: the paraphrase pairs that reinforce (target >= 90%) and the distinct-fact pairs that
 *   wrongly merge (target <= 5%);
 * - LoCoMo (../shared/bench-data/locomo10.json): every turn a document, each QA question's
 *   evidence turns its targets, recall@5 and @10 for BM25, vectors and hybrid.
 */
import { existsSync, readFileSync } from 'node:fs';

import { createKnowledge } from '../dist/knowledge/index.js';
import { withLocalEmbedder } from './local-embedder.js';
import { round } from './stats.js';
import { tempStores } from './temp-store.js';

const OPS = new URL('./data/ops-retrieval.json', import.meta.url);
const LOCOMO = new URL('../../shared/bench-data/locomo10.json', import.meta.url);
const clock = { now: () => Date.UTC(2026, 10, 1) };

function fresh(embedder) {
  const store = tempStores('wk-bench-search-');
  return { ...store, knowledge: createKnowledge({ stores: store.stores, embedder, clock }) };
}

/** Rows written straight to the store (no dedup: the set's memories are all distinct). */
function load(app, memories, withDescriptions) {
  const ids = new Map();
  const at = clock.now();
  for (const m of memories) {
    if (withDescriptions && m.service) app.knowledge.services.seen(m.service, at);
    const id = app.stores.memories.create({
      service: m.service,
      category: m.category ?? 'behavior',
      observation: m.observation,
      confidence: 0.7,
      sessionId: null,
      tier: 1,
      at,
      nextDecayAt: at + 1e12,
    });
    ids.set(id, m.id);
  }
  return ids;
}

async function rankMetrics(app, ids, queries, opts, ks = [5], surfacedToo = false) {
  let rr = 0;
  const hits = Object.fromEntries(ks.map((k) => [k, 0]));
  let surfaced = 0;
  const limit = Math.max(...ks, 10);
  for (const q of queries) {
    const answer = await app.knowledge.search.search(q.query, {
      limit,
      includeBelowThreshold: true,
      ...opts,
      ...(q.filter ?? {}),
    });
    const ranked = answer.results.map((r) => ids.get(r.memory.id));
    const targets = new Set(q.targets);
    const first = ranked.findIndex((id) => targets.has(id));
    if (first >= 0) rr += 1 / (first + 1);
    for (const k of ks) {
      // recall@k: the share of the question's targets within the first k.
      const found = ranked.slice(0, k).filter((id) => targets.has(id)).length;
      hits[k] += found / targets.size;
    }
    if (surfacedToo) {
      const above = await app.knowledge.search.search(q.query, { limit, ...(q.filter ?? {}) });
      if (above.results.some((r) => targets.has(ids.get(r.memory.id)))) surfaced += 1;
    }
  }
  const n = queries.length;
  return {
    mrr: rr / n,
    recall: Object.fromEntries(ks.map((k) => [k, hits[k] / n])),
    surfaced: surfaced / n,
  };
}

async function opsQuality(ctx, embedder, data) {
  const variants = [
    ['bm25', { only: 'lexical' }, false],
    ['vectors', { only: 'semantic' }, false],
    ['hybrid', {}, false],
    ['hybrid+descriptions', {}, true],
  ];
  for (const [name, opts, withDescriptions] of variants) {
    const app = fresh(embedder);
    try {
      const ids = load(app, data.memories, withDescriptions);
      await app.knowledge.pending.reindex(false);
      const m = await rankMetrics(app, ids, data.queries, opts, [5], !opts.only);
      ctx.add({
        name: `search.ops.${name}.mrr`,
        value: round(m.mrr, 3),
        unit: 'MRR',
        notes: `${data.queries.length} queries over ${data.memories.length} memories; recall@5 ${round(m.recall[5], 3)}${opts.only ? '' : `; a target above the surfacing threshold for ${round(m.surfaced * 100, 1)}% of queries`}`,
      });
    } finally {
      app.close();
    }
  }
}

/** Unrelated questions (LoCoMo chit-chat) against the ops memories: how often anything surfaces. */
async function falseSurfacing(ctx, embedder, data, locomo) {
  const app = fresh(embedder);
  try {
    load(app, data.memories, true);
    await app.knowledge.pending.reindex(false);
    const questions = locomo.flatMap((c) => c.qa.map((q) => q.question)).slice(0, 200);
    let any = 0;
    for (const q of questions) {
      if ((await app.knowledge.search.search(q, { limit: 5 })).results.length > 0) any += 1;
    }
    ctx.add({
      name: 'search.ops.unrelated_surfaced',
      value: round((any / questions.length) * 100, 1),
      unit: '%',
      notes: `${questions.length} LoCoMo questions asked of the ops memories: share that surfaced anything`,
    });
  } finally {
    app.close();
  }
}

async function dedup(ctx, embedder, data) {
  const rate = async (pairs) => {
    let merged = 0;
    let superseded = 0;
    for (const p of pairs) {
      const app = fresh(embedder);
      try {
        const first = await app.knowledge.memory.observe({
          service: p.service,
          category: 'behavior',
          observation: p.a,
          sessionId: null,
          tier: 1,
        });
        const second = await app.knowledge.memory.observe({
          service: p.service,
          category: 'timing',
          observation: p.b,
          sessionId: null,
          tier: 1,
        });
        if (second.action === 'reinforced' && second.memory.id === first.memory.id) merged += 1;
        if (second.action === 'superseded') superseded += 1;
      } finally {
        app.close();
      }
    }
    return { merged: merged / pairs.length, superseded: superseded / pairs.length };
  };
  const para = await rate(data.paraphrases);
  const distinct = await rate(data.distinct);
  ctx.add({
    name: 'search.dedup.paraphrase_reinforced',
    value: round(para.merged * 100, 1),
    unit: '%',
    notes: `${data.paraphrases.length} paraphrased re-observations that reinforce (target >= 90%)`,
  });
  ctx.add({
    name: 'search.dedup.distinct_merged',
    value: round(distinct.merged * 100, 1),
    unit: '%',
    notes: `${data.distinct.length} distinct-fact pairs wrongly merged (target <= 5%); ${round(distinct.superseded * 100, 1)}% supersede instead`,
  });
}

async function locomoRecall(ctx, embedder, locomo) {
  const app = fresh(embedder);
  try {
    const ids = new Map();
    const at = clock.now();
    const queries = [];
    for (const c of locomo) {
      const service = `conv-${c.sample_id}`.toLowerCase().replace(/[^a-z0-9_.-]/g, '-');
      for (const [key, turns] of Object.entries(c.conversation)) {
        if (!/^session_\d+$/.test(key) || !Array.isArray(turns)) continue;
        for (const t of turns) {
          const id = app.stores.memories.create({
            service,
            category: 'behavior',
            observation: `${t.speaker}: ${t.text}`.slice(0, 2000),
            confidence: 0.7,
            sessionId: null,
            tier: 1,
            at,
            nextDecayAt: at + 1e12,
          });
          ids.set(id, `${service}/${t.dia_id}`);
        }
      }
      for (const q of c.qa) {
        if (!q.evidence?.length || q.category === 5) continue;
        queries.push({
          query: q.question,
          targets: q.evidence.map((e) => `${service}/${e}`),
          filter: { service },
        });
      }
    }
    ctx.log(`LoCoMo: embedding ${ids.size} turns...`);
    await app.knowledge.pending.reindex(false);
    for (const [name, opts] of [
      ['bm25', { only: 'lexical' }],
      ['vectors', { only: 'semantic' }],
      ['hybrid', {}],
    ]) {
      const m = await rankMetrics(app, ids, queries, opts, [5, 10]);
      ctx.add({
        name: `search.locomo.${name}.recall@10`,
        value: round(m.recall[10], 3),
        unit: 'recall',
        notes: `${queries.length} questions, ${ids.size} turns; recall@5 ${round(m.recall[5], 3)}, MRR ${round(m.mrr, 3)}`,
      });
    }
  } finally {
    app.close();
  }
}

export async function runSearchQualityBench(ctx) {
  const data = JSON.parse(readFileSync(OPS, 'utf8'));
  const locomo = existsSync(LOCOMO) ? JSON.parse(readFileSync(LOCOMO, 'utf8')) : null;
  await withLocalEmbedder(async (embedder) => {
    await opsQuality(ctx, embedder, data);
    await dedup(ctx, embedder, data);
    if (locomo) {
      await falseSurfacing(ctx, embedder, data, locomo);
      await locomoRecall(ctx, embedder, locomo);
    } else ctx.log('LoCoMo not found beside the repo (../shared/bench-data): skipped');
  });
}
