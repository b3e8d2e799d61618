/**
 * The vector pass of the search at N memories (part of search-speed): recall@10 against an exact
 * scan of every vector, and the time of the pass (candidates, their float vectors read from the
 * store, exact re-rank), for the HNSW index the search uses and for the sign-bit scan it replaced
 * (the baseline), in the same run on the same store. Also the index's build from the stored
 * vectors (its file missing) and its load from the file (a second process's start).
 */
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import { createKnowledge } from '../dist/knowledge/index.js';
import { createAnnIndex } from '../dist/knowledge/vector-ann.js';
import { createVectorIndex, rankExact } from '../dist/knowledge/vector-index.js';
import { dot } from '../dist/memory/index.js';
import { round } from './stats.js';

const MODEL = 'use-lite-512';
const COARSE = 400;
/** What the search re-ranks of the HNSW index's 400 (src/knowledge/search-candidates.ts). */
const CANDIDATES = 200;

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Builds the index of the store (timed), then loads it again from its file (timed). */
export function measureIndexBuild(ctx, n, store, embedder) {
  const t0 = performance.now();
  void createKnowledge({ stores: store.stores, embedder, clock: store.clock }).search.prepare();
  const buildMs = performance.now() - t0;
  const file = store.stores.search.vectorIndexFile;
  const t1 = performance.now();
  void createKnowledge({ stores: store.stores, embedder, clock: store.clock }).search.prepare();
  const loadMs = performance.now() - t1;
  const mb = file ? statSync(`${file}.usearch`).size / 1e6 : 0;
  ctx.add({
    name: `search.${n / 1000}k.index_build_s`,
    value: round(buildMs / 1000, 1),
    unit: 's',
    notes: `HNSW index (usearch, int8) built from the ${n} stored vectors, its file missing; loaded again from its ${round(mb, 1)} MB file in ${round(loadMs, 0)} ms`,
  });
}

/** Recall@10 and time of the vector pass, HNSW and sign-bit, against an exact scan. */
export async function measureVectorPass(ctx, n, stores, embedder, queries) {
  const all = stores.search.vectorsSince(0, MODEL);
  const floats = all.map((r) => ({
    id: r.memoryId,
    v: new Float32Array(new Uint8Array(r.vector).buffer),
  }));
  const dimension = floats[0].v.length;
  const passes = {
    hnsw: createAnnIndex(stores.search, MODEL, dimension, stores.search.vectorIndexFile),
    signbit: createVectorIndex(stores.search, MODEL, dimension),
  };
  const got = { hnsw: { recall: 0, ms: [] }, signbit: { recall: 0, ms: [] } };
  const exactMs = [];
  const qvs = await embedder.embedQueries(queries);
  for (const index of Object.values(passes)) index.refresh();
  for (const qv of qvs) {
    const t0 = performance.now();
    const exact = floats
      .map((f) => ({ id: f.id, c: dot(qv, f.v) }))
      .sort((a, b) => b.c - a.c)
      .slice(0, 10)
      .map((h) => h.id);
    exactMs.push(performance.now() - t0);
    for (const [name, index] of Object.entries(passes)) {
      const t1 = performance.now();
      const ids =
        name === 'hnsw' ? index.candidates(qv, CANDIDATES, COARSE) : index.candidates(qv, COARSE);
      const top = rankExact(qv, stores.search.vectorsOf(ids, MODEL), 10).map((h) => h.memoryId);
      got[name].ms.push(performance.now() - t1);
      got[name].recall += exact.filter((id) => top.includes(id)).length / 10;
    }
  }
  const exactNote = `an exact scan of all ${n} vectors takes ${round(median(exactMs), 1)} ms median in JS`;
  for (const [name, label] of [
    [
      'hnsw',
      `HNSW index (usearch, int8), the search uses it: its ${CANDIDATES} nearest of ${COARSE}`,
    ],
    ['signbit', `sign-bit Hamming scan, the baseline it replaced: its ${COARSE} nearest`],
  ]) {
    ctx.add({
      name: `search.${n / 1000}k.vector_recall@10.${name}`,
      value: round(got[name].recall / qvs.length, 3),
      unit: 'recall',
      notes: `${label} re-ranked exactly vs an exact scan (${qvs.length} queries); the pass takes ${round(median(got[name].ms), 2)} ms median; ${exactNote}`,
    });
  }
}
