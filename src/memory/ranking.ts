/**
 * Hybrid ranking, seed 000 section 4.3 adapted: lexical (BM25) and semantic (cosine) candidate
 * lists fused by reciprocal rank fusion, then
 *
 *   score = relevance x confidence weight x recency weight
 *
 * where relevance is the fused score relative to the best possible one (rank 1 in every list that
 * produced candidates). Nothing is surfaced below a threshold, and a candidate needs evidence of
 * its own to be surfaced at all: a cosine at or above the model's floor, or a lexical match that
 * covers half of the query's weight (its words weighed by idf, see evidence.ts), or is among
 * BM25's first matches for a query about what the store holds, or names the memory's service. Without that a rank-based
 * score would always call the best of many unrelated memories relevant, and a long query (a
 * tool call, an alert) would match everything that shares one common word with it.
 */
import { DAY_MS } from '../clock.js';

export interface RankingPolicy {
  /**
   * RRF constant: 1 / (k + rank). The original paper's 60 suits lists of thousands; over a few
   * hundred memories it made a fifth-place match in both lists outrank the first in one.
   */
  rrfK: number;
  /** Weight of the BM25 list in the fusion (BM25 is the more precise signal on ops text). */
  lexicalWeight: number;
  /** Weight of the vector list in the fusion. */
  semanticWeight: number;
  /** Weight of the list of memories whose service's description is close to the query. */
  serviceWeight: number;
  /** Below this final score nothing is surfaced. */
  threshold: number;
}

/**
 * Chosen on the development splits of the bench's ops set and LoCoMo together (the sum of ops
 * MRR and LoCoMo recall@10), over a grid of k 1-60 and list weights, with memories searched with
 * their context: ops MRR 0.449 -> 0.458, LoCoMo recall@10 0.730 -> 0.733 against weights 3, 2, 1
 * (tune with `npm run bench -- --only search-quality`, which reports the held-out splits
 * beside). The vector list weighs half the words: the small local model's nearest memories are
 * often of the right service but not the answer. The grid's best (k 5, 0.003 more on the sum)
 * was passed over: a memory found by meaning alone must still surface at a low confidence, and
 * here one second in the vector list at confidence 0.4 scores 0.21 (k 5: 0.20, cut).
 */
export const DEFAULT_RANKING: RankingPolicy = {
  rrfK: 10,
  lexicalWeight: 4,
  semanticWeight: 2,
  serviceWeight: 0.5,
  threshold: 0.2,
};

/** Why a result ranked where it did: every component, for `--json` and the dashboard. */
export interface ScoreParts {
  /** 1-based position in the BM25 list, null when it did not match lexically. */
  lexicalRank: number | null;
  /** FTS5 bm25() of the match (lower is better), null without a lexical match. */
  bm25: number | null;
  /** Share of the query the memory (with its service and description) holds: see evidence.ts. */
  coverage: number | null;
  /** 1-based position in the vector list, null when it was not a semantic candidate. */
  semanticRank: number | null;
  /** Cosine similarity to the query, null without a vector. */
  cosine: number | null;
  /** 1-based position in the list of memories of services whose description matches. */
  serviceRank: number | null;
  /** Cosine of the query to what the memory's service is (its description). */
  serviceCosine: number | null;
  /** Reciprocal rank fusion of the two positions. */
  fused: number;
  /** fused relative to rank 1 in both lists, 0..1. */
  relevance: number;
  confidenceWeight: number;
  recencyWeight: number;
  importanceWeight: number;
  score: number;
}

export interface Candidate {
  id: number;
  lexicalRank: number | null;
  bm25: number | null;
  coverage: number | null;
  /**
   * Among BM25's first matches for a query about what the store holds, covering a fair share
   * of what the best of them covers, with a query word in its own text (search-rank.ts).
   */
  leading?: boolean;
  /** Share of the query's weight in words some memory holds (see evidence.ts). */
  known?: number;
  /** The query names the memory's service. */
  serviceNamed?: boolean;
  semanticRank: number | null;
  cosine: number | null;
  serviceRank?: number | null;
  serviceCosine?: number | null;
}

export function fusedScore(c: Candidate, p: RankingPolicy = DEFAULT_RANKING): number {
  const lex = c.lexicalRank === null ? 0 : p.lexicalWeight / (p.rrfK + c.lexicalRank);
  const sem = c.semanticRank === null ? 0 : p.semanticWeight / (p.rrfK + c.semanticRank);
  const svc =
    c.serviceRank === null || c.serviceRank === undefined
      ? 0
      : p.serviceWeight / (p.rrfK + c.serviceRank);
  return lex + sem + svc;
}

/** Which candidate lists produced anything in this search. */
export interface ListsUsed {
  lexical: boolean;
  semantic: boolean;
  service: boolean;
}

/**
 * The best fused score there is, given which lists produced candidates in this search (`true`:
 * all three, `false`: the lexical one): a list that found nothing, or did not run, caps no one.
 */
export function bestFusedScore(
  used: boolean | ListsUsed,
  p: RankingPolicy = DEFAULT_RANKING,
): number {
  const u = typeof used === 'boolean' ? { lexical: true, semantic: used, service: used } : used;
  const weight =
    (u.lexical ? p.lexicalWeight : 0) +
    (u.semantic ? p.semanticWeight : 0) +
    (u.service ? p.serviceWeight : 0);
  return (weight || p.lexicalWeight) / (p.rrfK + 1);
}

/** 1.0 for confidence 1, 0.5 for confidence 0: sure memories first, unsure ones still found. */
export function confidenceWeight(confidence: number): number {
  return 0.5 + 0.5 * Math.min(1, Math.max(0, confidence));
}

/** 1.0 under 7 days since the last reinforcement, falling linearly to 0.5 at 90 days and beyond. */
export function recencyWeight(lastReinforcedAt: number, now: number): number {
  const days = Math.max(0, now - lastReinforcedAt) / DAY_MS;
  if (days <= 7) return 1;
  if (days >= 90) return 0.5;
  return 1 - (0.5 * (days - 7)) / 83;
}

/** Importance levels (seed 002) and what each is worth: how much a memory matters. */
export const IMPORTANCE_VALUES = { low: 0.3, normal: 0.5, high: 0.7, core: 0.9 } as const;
export type ImportanceLevel = keyof typeof IMPORTANCE_VALUES;
/** At or above this importance, promotion to core is suggested (seed 002). */
export const CORE_SUGGESTION = 0.8;
/** What one memory_reinforce call adds to a memory's importance (seed 002). */
export const IMPORTANCE_STEP = 0.1;

/** The importance a memory has: its level's value plus what reinforcement added, at most 1. */
export function importanceValue(level: ImportanceLevel, boost = 0): number {
  return Math.round(Math.min(1, IMPORTANCE_VALUES[level] + Math.max(0, boost)) * 100) / 100;
}

/**
 * seed 000's importance weight in the search score, normalised so that a memory of normal
 * importance scores as before: low 0.6, normal 1.0, high 1.4, core 1.8 (and up to 2.0 with the
 * boost of reinforcement), so a core memory is never ranked below one of equal relevance.
 */
export function importanceWeight(level: ImportanceLevel, boost = 0): number {
  return importanceValue(level, boost) / IMPORTANCE_VALUES.normal;
}

/** Whether promotion to core should be suggested: it matters this much and is not core yet. */
export function suggestsCore(level: ImportanceLevel, boost = 0): boolean {
  return level !== 'core' && importanceValue(level, boost) >= CORE_SUGGESTION;
}

export interface ScoreInput {
  candidate: Candidate;
  confidence: number;
  lastReinforcedAt: number;
  /** seed 000's importance weight; 1 for a memory of normal importance. */
  importanceWeight?: number;
  now: number;
  semanticUsed: boolean;
  /** The lists that produced candidates; without it, all three when semanticUsed. */
  lists?: ListsUsed;
}

export function scoreCandidate(input: ScoreInput, p: RankingPolicy = DEFAULT_RANKING): ScoreParts {
  const { candidate: c } = input;
  const fused = fusedScore(c, p);
  const relevance = Math.min(1, fused / bestFusedScore(input.lists ?? input.semanticUsed, p));
  const cw = confidenceWeight(input.confidence);
  const rw = recencyWeight(input.lastReinforcedAt, input.now);
  const iw = input.importanceWeight ?? 1;
  return {
    lexicalRank: c.lexicalRank,
    bm25: c.bm25,
    coverage: c.coverage,
    semanticRank: c.semanticRank,
    cosine: c.cosine,
    serviceRank: c.serviceRank ?? null,
    serviceCosine: c.serviceCosine ?? null,
    fused,
    relevance,
    confidenceWeight: cw,
    recencyWeight: rw,
    importanceWeight: iw,
    score: relevance * cw * rw * iw,
  };
}

/** A lexical match covering at least this share of the query's weight is evidence enough. */
export const MIN_COVERAGE = 0.5;
/**
 * BM25's first matches (a page of results) are evidence on their own when the query is about
 * what the store holds: at least KNOWN_SHARE of its weight in words some memory has. A question
 * about something else (a name, a topic no memory mentions) surfaces nothing for a shared word;
 * nor does a match covering under LEAD_SHARE of what the best match covers.
 */
export const STRONG_RANK = 10;
export const KNOWN_SHARE = 0.5;
export const LEAD_SHARE = 0.25;

/**
 * Evidence of its own: enough of the query's weight, a top BM25 rank for a query about what the
 * store holds, its service named, or a close meaning; with `serviceFloor`, also a service whose
 * description is that close to the query.
 */
export function hasEvidence(c: Candidate, cosineFloor: number, serviceFloor?: number): boolean {
  if (c.cosine !== null && c.cosine >= cosineFloor) return true;
  if (serviceFloor !== undefined && (c.serviceCosine ?? 0) >= serviceFloor) return true;
  if (c.lexicalRank === null) return false;
  if (c.leading === true) return true;
  return c.serviceNamed === true || (c.coverage ?? 0) >= MIN_COVERAGE;
}

/** Merges the two candidate lists (each best first) into one candidate per id. */
export function mergeCandidates(
  lexical: readonly { id: number; bm25: number }[],
  semantic: readonly { id: number; cosine: number }[],
  byService: readonly { id: number; serviceCosine: number }[] = [],
): Candidate[] {
  const byId = new Map<number, Candidate>();
  const get = (id: number): Candidate => {
    let c = byId.get(id);
    if (!c) {
      c = { id, lexicalRank: null, bm25: null, coverage: null, semanticRank: null, cosine: null };
      byId.set(id, c);
    }
    return c;
  };
  lexical.forEach((hit, i) => {
    const c = get(hit.id);
    c.lexicalRank = i + 1;
    c.bm25 = hit.bm25;
  });
  semantic.forEach((hit, i) => {
    const c = get(hit.id);
    c.semanticRank = i + 1;
    c.cosine = hit.cosine;
  });
  byService.forEach((hit, i) => {
    const c = get(hit.id);
    c.serviceRank = i + 1;
    c.serviceCosine = hit.serviceCosine;
  });
  return [...byId.values()];
}
