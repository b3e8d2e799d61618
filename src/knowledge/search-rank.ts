/**
 * The last steps of the hybrid search: how much of the query each lexical match covers, then
 * each candidate with evidence enough scored (src/memory/ranking.ts) and ordered.
 */
import type { MemoryRow, ServiceStore } from '../db/index.js';
import {
  type Candidate,
  hasEvidence,
  importanceWeight,
  queryCoverage,
  queryWords,
  type RankingPolicy,
  scoreCandidate,
  type ScoreParts,
} from '../memory/index.js';

/** How much of the query each lexical match covers: its words, service and description. */
export function noteCoverage(
  text: string,
  candidates: Candidate[],
  rows: ReadonlyMap<number, MemoryRow>,
  services: ServiceStore,
): void {
  const named = new Set(queryWords(text, 64));
  const descriptions = new Map<string, string>();
  for (const c of candidates) {
    const m = rows.get(c.id);
    if (!m || c.lexicalRank === null) continue;
    const service = m.service ?? '';
    if (service && !descriptions.has(service)) {
      descriptions.set(service, services.get(service)?.description ?? '');
    }
    c.serviceNamed = service !== '' && named.has(service);
    c.coverage = queryCoverage(
      text,
      `${m.observation} ${service} ${descriptions.get(service) ?? ''}`,
    );
  }
}

/** The candidates that pass the floors and the threshold (all, when asked), best first. */
export function rankCandidates(
  candidates: Candidate[],
  rows: ReadonlyMap<number, MemoryRow>,
  opts: {
    floor: number;
    serviceFloor: number | undefined;
    includeBelowThreshold: boolean;
    now: number;
    semanticUsed: boolean;
    ranking: RankingPolicy;
  },
): { memory: MemoryRow; why: ScoreParts }[] {
  const { ranking } = opts;
  const results: { memory: MemoryRow; why: ScoreParts }[] = [];
  for (const c of candidates) {
    const memory = rows.get(c.id);
    if (!memory) continue;
    if (!opts.includeBelowThreshold && !hasEvidence(c, opts.floor, opts.serviceFloor)) continue;
    const why = scoreCandidate(
      {
        candidate: c,
        confidence: memory.confidence,
        lastReinforcedAt: memory.lastReinforcedAt,
        importanceWeight: importanceWeight(memory.importance, memory.importanceBoost),
        now: opts.now,
        semanticUsed: opts.semanticUsed,
      },
      ranking,
    );
    if (!opts.includeBelowThreshold && why.score < ranking.threshold) continue;
    results.push({ memory, why });
  }
  return results.sort((a, b) => b.why.score - a.why.score || a.memory.id - b.memory.id);
}
