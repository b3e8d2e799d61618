/** The search-quality part's rows: each figure for the development split and the held-out one. */
import { CATEGORIES } from '../locomo.js';
import { round } from '../stats.js';
import { OUTCOMES } from './dedup.js';

const PATHS = ['fts5', 'off', 'hybrid'];
const LOCOMO_PATHS = [...PATHS, 'graph'];
const PATH_NOTE = {
  fts5: 'FTS5 porter unicode61 BM25 baseline',
  off: 'memories search, embeddings off',
  hybrid: 'memories search, local model',
  graph: 'graph remember, local model',
};

const pct = (x) => (x === null ? null : round(x * 100, 1));
const fig = (x) => (x === null ? null : round(x, 3));

function locomoRows(t, facts) {
  const rows = [];
  const groups = ['all', '1', '2', '3', '4', '5'];
  for (const path of LOCOMO_PATHS) {
    // A path the run left out (the slice runs `off` alone).
    if (t.count(path, 'dev', 'all') + t.count(path, 'heldout', 'all') === 0) continue;
    for (const g of groups) {
      const label = g === 'all' ? 'cat1-4' : `${g}-${CATEGORIES[g]}`;
      const n = `${t.count(path, 'dev', g)} / ${t.count(path, 'heldout', g)} questions`;
      for (const [metric, unit] of [
        ['r5', 'recall@5'],
        ['r10', 'recall@10'],
      ]) {
        rows.push({
          name: `locomo.${path}.${label}.${unit}`,
          value: fig(t.mean(path, 'dev', g, metric)),
          heldOut: fig(t.mean(path, 'heldout', g, metric)),
          unit,
          notes: `${PATH_NOTE[path]}; ${n}${g === 'all' ? `; ${facts.locomo.turns} turns, ${facts.locomo.questions} questions in all` : ''}`,
        });
      }
    }
  }
  return rows;
}

function opsRows(t, sets) {
  const n = (split) => sets.ops.queries.filter((q) => q.split === split).length;
  return PATHS.flatMap((path) =>
    [
      ['mrr', 'MRR'],
      ['r1', 'recall@1'],
      ['r5', 'recall@5'],
    ].map(([metric, unit]) => ({
      name: `ops.${path}.${unit}`,
      value: fig(t.mean(path, 'dev', 'ops', metric)),
      heldOut: fig(t.mean(path, 'heldout', 'ops', metric)),
      unit,
      notes: `${PATH_NOTE[path]}; ${n('dev')} / ${n('heldout')} queries over ${sets.ops.memories.length} memories`,
    })),
  );
}

function unrelatedRows(t, sets) {
  if (sets.unrelated.length === 0) return [];
  return ['off', 'hybrid'].map((path) => ({
    name: `ops.${path}.unrelated_surfaced`,
    value: pct(t.mean(path, 'dev', 'unrelated', 'surfaced')),
    heldOut: null,
    unit: '%',
    notes: `${PATH_NOTE[path]}; ${sets.unrelated.length} LoCoMo questions asked of the ops memories: share that surfaced anything (should be 0)`,
  }));
}

function dedupRows(t, sets) {
  const expects = ['expect-reinforce', 'expect-supersede', 'expect-apart'];
  const names = [...new Set(sets.pairs.map((p) => p.set)), 'new-pairs', 'blind-pairs', ...expects];
  const expectOf = (set) =>
    set === 'new-pairs' || set === 'blind-pairs'
      ? 'as each pair expects'
      : expects.includes(set)
        ? `${set.slice('expect-'.length)}, every new and blind pair that expects it`
        : set === 'distinct'
          ? 'not reinforced'
          : (sets.pairs.find((p) => p.set === set).expect ?? 'reinforce');
  const mix = (path, split, set) =>
    t.count(path, split, set) === 0
      ? null
      : OUTCOMES.map((o) => `${o} ${pct(t.mean(path, split, set, o))}%`).join(', ');
  return ['off', 'hybrid'].flatMap((path) =>
    names.map((set) => ({
      name: `dedup.${path}.${set}`,
      value: pct(t.mean(path, 'dev', set, 'right')),
      heldOut: pct(t.mean(path, 'heldout', set, 'right')),
      unit: '% right',
      notes: `expect ${expectOf(set)}; ${t.count(path, 'dev', set)} / ${t.count(path, 'heldout', set)} pairs; dev ${mix(path, 'dev', set)}${mix(path, 'heldout', set) ? `; held-out ${mix(path, 'heldout', set)}` : ''}`,
    })),
  );
}

function verifyRows(t) {
  const verdicts = ['confirmed', 'related', 'conflict', 'new'];
  return ['off', 'hybrid'].flatMap((path) => [
    {
      name: `verify.${path}.agreement`,
      value: pct(t.mean(path, 'dev', 'verify', 'right')),
      heldOut: pct(t.mean(path, 'heldout', 'verify', 'right')),
      unit: '%',
      notes: `memory_verify against a careful reader; ${t.count(path, 'dev', 'verify')} / ${t.count(path, 'heldout', 'verify')} claims; verdicts given (dev) ${verdicts.map((v) => `${v} ${pct(t.mean(path, 'dev', 'verify', `as-${v}`))}%`).join(', ')}`,
    },
    {
      name: `verify.${path}.confirmed_wrongly`,
      value: pct(t.mean(path, 'dev', 'verify', 'wronglyConfirmed')),
      heldOut: pct(t.mean(path, 'heldout', 'verify', 'wronglyConfirmed')),
      unit: '%',
      notes: 'claims confirmed that no memory says (related, conflicting or new ones)',
    },
  ]);
}

export function qualityRows(t, sets, facts) {
  return [
    ...(facts.locomo ? locomoRows(t, facts) : []),
    ...opsRows(t, sets),
    ...unrelatedRows(t, sets),
    ...dedupRows(t, sets),
    ...verifyRows(t),
  ];
}
