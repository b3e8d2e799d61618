/**
 * The last steps of the hybrid search: how much of the query's weight each lexical match covers
 * (src/memory/evidence.ts), then each candidate with evidence enough scored
 * (src/memory/ranking.ts) and ordered.
 */
import type { MemoryRow } from '../db/index.js';
import {
  type Candidate,
  hasEvidence,
  KNOWN_SHARE,
  LEAD_SHARE,
  importanceWeight,
  type ListsUsed,
  MIN_COVERAGE,
  queryWeights,
  queryWords,
  type RankingPolicy,
  scoreCandidate,
  type ScoreParts,
  STRONG_RANK,
  weightedCoverage,
} from '../memory/index.js';

/** How many of the query's words its evidence weighs. */
export const COVERED_WORDS = 64;

/**
 * How much of the query's weight each lexical match covers: its words, service and description
 * (`found`: how many of the store's memories hold each query word; `descriptions`: what the
 * lexical matches' services are, read in one statement beside their rows); and which lead, by
 * their words and their near context (`nearOf`, asked for BM25's first matches only).
 */
export function noteCoverage(
  text: string,
  found: { rows: number; counts: ReadonlyMap<string, number> },
  candidates: Candidate[],
  rows: ReadonlyMap<number, MemoryRow>,
  descriptions: ReadonlyMap<string, string>,
  nearOf: (ids: readonly number[]) => ReadonlyMap<number, string> = () => new Map(),
): void {
  const words = queryWords(text, COVERED_WORDS);
  const named = new Set(words);
  const { weights, known } = queryWeights(words, found);
  /** BM25's first matches: whether they lead is read below. */
  const top: Candidate[] = [];
  for (const c of candidates) {
    const m = rows.get(c.id);
    if (c.lexicalRank === null || !m) continue;
    const service = m.service ?? '';
    c.serviceNamed = service !== '' && named.has(service);
    c.known = known;
    c.coverage = weightedCoverage(
      weights,
      `${m.observation} ${service} ${descriptions.get(service) ?? ''}`,
    );
    if (c.lexicalRank <= STRONG_RANK) top.push(c);
  }
  if (known < KNOWN_SHARE) return;
  // What the service is matches every memory of it: a leading match says something itself, or
  // what was said right beside it does (the question a reply answers; only memories learned in
  // order with others have such context, migration 0023).
  const near = nearOf(top.map((c) => c.id));
  const first = top.flatMap((c) => {
    const said = weightedCoverage(
      weights,
      `${rows.get(c.id)!.observation} ${near.get(c.id) ?? ''}`,
    );
    return said > 0 ? [{ c, said: Math.max(said, c.coverage ?? 0) }] : [];
  });
  const best = Math.max(0, ...first.map((f) => f.said));
  for (const f of first) f.c.leading = f.said >= LEAD_SHARE * best;
}

/** Why a candidate did not come back (`--explain`, `explain=1`). */
export type CutReason = 'no evidence' | 'below threshold' | 'outranked';

export interface CutResult {
  memory: MemoryRow;
  why: ScoreParts;
  reason: CutReason;
  /** The figures behind the reason, in words. */
  detail: string;
}

interface RankOptions {
  floor: number;
  serviceFloor: number | undefined;
  includeBelowThreshold: boolean;
  now: number;
  semanticUsed: boolean;
  lists: ListsUsed;
  ranking: RankingPolicy;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** What the evidence rule saw in a candidate it refused. */
function noEvidence(c: Candidate, floor: number): string {
  const meaning =
    c.cosine === null
      ? 'no vector to compare'
      : `meaning ${c.cosine.toFixed(2)}, under the floor of ${floor.toFixed(2)}`;
  const words =
    c.lexicalRank === null
      ? 'not found by its words'
      : `its words cover ${pct(c.coverage ?? 0)} of the query's weight (${pct(MIN_COVERAGE)} needed), ` +
        `lexical rank ${c.lexicalRank}, not leading`;
  return `${meaning}; ${words}`;
}

/**
 * The candidates that pass the floors and the threshold (all, when asked), best first; with
 * `cut`, each one refused is added to it with the reason.
 */
export function rankCandidates(
  candidates: Candidate[],
  rows: ReadonlyMap<number, MemoryRow>,
  opts: RankOptions,
  cut?: CutResult[],
): { memory: MemoryRow; why: ScoreParts }[] {
  const { ranking } = opts;
  const results: { memory: MemoryRow; why: ScoreParts }[] = [];
  for (const c of candidates) {
    const memory = rows.get(c.id);
    if (!memory) continue;
    const evidence = opts.includeBelowThreshold || hasEvidence(c, opts.floor, opts.serviceFloor);
    if (!evidence && !cut) continue;
    const why = scoreCandidate(
      {
        candidate: c,
        confidence: memory.confidence,
        lastReinforcedAt: memory.lastReinforcedAt,
        importanceWeight: importanceWeight(memory.importance, memory.importanceBoost),
        now: opts.now,
        semanticUsed: opts.semanticUsed,
        lists: opts.lists,
      },
      ranking,
    );
    if (!evidence) {
      cut!.push({ memory, why, reason: 'no evidence', detail: noEvidence(c, opts.floor) });
      continue;
    }
    if (!opts.includeBelowThreshold && why.score < ranking.threshold) {
      cut?.push({
        memory,
        why,
        reason: 'below threshold',
        detail: `score ${why.score.toFixed(2)}, under the threshold of ${ranking.threshold.toFixed(2)}`,
      });
      continue;
    }
    results.push({ memory, why });
  }
  const order = (a: { memory: MemoryRow; why: ScoreParts }, b: typeof a) =>
    b.why.score - a.why.score || a.memory.id - b.memory.id;
  cut?.sort(order);
  return results.sort(order);
}
