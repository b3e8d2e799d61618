/**
 * The ops retrieval set (bench/data/ops-retrieval.json: the development queries;
 * ops-retrieval-heldout.json: queries written apart, over the same memories, before any tuning
 * against them) through `GET /api/v1/memories/search?q=&limit=10` of a `serve` on a store the
 * memories were imported into: MRR, recall@1 and @5 per split, beside the FTS5 baseline over the
 * same memories.
 */
import { readFileSync } from 'node:fs';

import { fts5Index } from './fts5-baseline.js';
import { recallAt, reciprocalRank } from './metrics.js';

const DEV = new URL('../data/ops-retrieval.json', import.meta.url);
const HELD_OUT = new URL('../data/ops-retrieval-heldout.json', import.meta.url);

export function loadOpsSet() {
  const dev = JSON.parse(readFileSync(DEV, 'utf8'));
  const heldout = JSON.parse(readFileSync(HELD_OUT, 'utf8'));
  return {
    memories: dev.memories,
    paraphrases: dev.paraphrases,
    distinct: dev.distinct,
    queries: [
      ...dev.queries.map((q) => ({ ...q, split: 'dev' })),
      ...heldout.queries.map((q) => ({ ...q, split: 'heldout' })),
    ],
  };
}

/** The memories as import documents: the source reference is the memory's id in the set. */
export const opsDocs = (set) =>
  set.memories.map((m) => ({
    service: m.service,
    category: m.category,
    text: m.observation,
    ref: m.id,
  }));

function record(t, path, q, ranked) {
  t.add(path, q.split, 'ops', {
    mrr: reciprocalRank(ranked, q.targets),
    r1: recallAt(ranked, q.targets, 1),
    r5: recallAt(ranked, q.targets, 5),
  });
}

/**
 * Asks every query of the set of `serve`, into `t` under `path`; then each of `unrelated`
 * (questions about something else: LoCoMo's chit-chat), counting those that surface anything.
 */
export async function askOps(t, path, serve, set, unrelated) {
  for (const q of set.queries) {
    const answer = await serve.get('/memories/search', { q: q.query, limit: 10 });
    record(
      t,
      path,
      q,
      answer.results.map((r) => r.source_ref),
    );
  }
  for (const q of unrelated) {
    const answer = await serve.get('/memories/search', { q, limit: 5 });
    t.add(path, 'dev', 'unrelated', { surfaced: answer.results.length > 0 ? 1 : 0 });
  }
}

export function opsBaseline(t, set) {
  const base = fts5Index(opsDocs(set).map((d) => ({ id: d.ref, text: d.text })));
  for (const q of set.queries) record(t, 'fts5', q, base.search(q.query, 10));
  base.close();
}
