/**
 * Dedup judged through `POST /api/v1/memories` of a `serve` on an empty store: a is added, then
 * b for the same service, and the answer's `action` says what the memory service did with b
 * (`reinforced` a, `superseded` a, or `created`: kept apart). Both are deleted afterwards
 * (`DELETE /api/v1/memories/{id}`), so every pair meets an empty store.
 *
 * Sets: the older paraphrases (should reinforce) and distinct pairs (must not be merged) of
 * ops-retrieval.json, development only; the pairs of dedup-pairs.json by kind, dev and held out;
 * the blind pairs by kind: dedup-pairs-blind-dev.json to tune on, dedup-pairs-blind.json held
 * out. Every pair of a kind is also counted by what it expects (`expect-reinforce`,
 * `expect-supersede`, `expect-apart`): the targets.
 */
import { readFileSync } from 'node:fs';

const PAIRS = new URL('../data/dedup-pairs.json', import.meta.url);
/** Pairs written without sight of the rule that judges them: held out, reported on their own. */
const BLIND = new URL('../data/dedup-pairs-blind.json', import.meta.url);
/** More pairs written so, later and apart from the held-out ones: the development split. */
const BLIND_DEV = new URL('../data/dedup-pairs-blind-dev.json', import.meta.url);

export const OUTCOMES = ['reinforce', 'apart', 'supersede'];

/** Every pair with the set it is reported in, its split and what counts as right. */
export function loadDedupSets(ops) {
  const right = (expect) => (o) => o === expect;
  return [
    ...ops.paraphrases.map((p) => ({
      ...p,
      set: 'paraphrases',
      split: 'dev',
      right: right('reinforce'),
    })),
    ...ops.distinct.map((p) => ({
      ...p,
      set: 'distinct',
      split: 'dev',
      right: (o) => o !== 'reinforce',
    })),
    ...JSON.parse(readFileSync(PAIRS, 'utf8')).pairs.map((p) => ({
      ...p,
      set: p.kind,
      fresh: true,
      right: right(p.expect),
    })),
    ...[BLIND_DEV, BLIND].flatMap((file) =>
      JSON.parse(readFileSync(file, 'utf8')).pairs.map((p) => ({
        ...p,
        set: `${p.kind} (blind)`,
        blind: true,
        right: right(p.expect),
      })),
    ),
  ];
}

async function judge(serve, p) {
  const add = (observation) =>
    serve.api('POST', '/memories', { service: p.service, category: 'behavior', observation });
  const first = await add(p.a);
  const second = await add(p.b);
  for (const id of new Set([first.id, second.id])) await serve.api('DELETE', `/memories/${id}`);
  if (second.action === 'reinforced') return second.id === first.id ? 'reinforce' : 'apart';
  return second.action === 'superseded' ? 'supersede' : 'apart';
}

/** Judges every pair; t gets, per set and split, the share right and of each outcome. */
export async function judgePairs(t, path, serve, pairs) {
  for (const p of pairs) {
    const outcome = await judge(serve, p);
    const values = { right: p.right(outcome) ? 1 : 0 };
    for (const o of OUTCOMES) values[o] = o === outcome ? 1 : 0;
    t.add(path, p.split, p.set, values);
    if (p.fresh) t.add(path, p.split, 'new-pairs', values);
    if (p.blind) t.add(path, p.split, 'blind-pairs', values);
    if (p.fresh || p.blind) t.add(path, p.split, `expect-${p.expect}`, values);
  }
}
