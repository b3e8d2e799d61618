/**
 * The one hybrid search every reader uses (the session's block, the in-session hook, the
 * dashboard, the CLI, the memory tools): BM25 over the memory, its service and what the service
 * is, and cosine over the memory's vector, fused by reciprocal rank fusion and weighted by
 * confidence and recency (src/memory/ranking.ts). Memories not yet embedded are still found
 * lexically; with embeddings off or failing the search is lexical only and says so. Every reader
 * sees this instance's memories and the fleet's, never another instance's.
 */
import type { Clock } from '../clock.js';
import {
  anyOfWords,
  type MemoryRow,
  type MemoryStore,
  type SearchFilter,
  type SearchStore,
  type ServiceStore,
} from '../db/index.js';
import {
  type Candidate,
  DEFAULT_RANKING,
  dot,
  fromBlob,
  hasEvidence,
  importanceWeight,
  mergeCandidates,
  queryCoverage,
  queryWords,
  type RankingPolicy,
  scoreCandidate,
  type ScoreParts,
} from '../memory/index.js';
import { searchDuration } from '../metrics/index.js';
import type { Embedding } from './embedding.js';
import { createVectorIndex, rankExact, type VectorIndex } from './vector-index.js';

export interface SearchOptions extends SearchFilter {
  limit?: number;
  /** Include results below the threshold (the dashboard's "why not" view, benchmarks). */
  includeBelowThreshold?: boolean;
  /** Skip these memories (already surfaced in this session). */
  exclude?: ReadonlySet<number>;
  /**
   * The cosine that counts as evidence on its own. Defaults to the model's floor; unsolicited
   * surfacing (the session's block, the in-session hook) asks for the stricter "related".
   */
  minCosine?: number;
  /** Rank by one list alone (diagnostics and the retrieval benchmark). */
  only?: 'lexical' | 'semantic';
}

export interface SearchResult {
  memory: MemoryRow;
  why: ScoreParts;
}

export interface SearchAnswer {
  results: SearchResult[];
  /** How the search ran: with vectors, or lexically (embeddings off, failing, or no vectors). */
  mode: 'hybrid' | 'lexical';
  /** Milliseconds spent embedding the query, and ranking. */
  embedMs: number;
  rankMs: number;
}

/** How many candidates each list contributes to the fusion. */
const CANDIDATES = 200;
/** Hamming candidates re-ranked exactly; bench/search.js measures recall against exact. */
const COARSE = 400;
/** How many services whose description matches contribute their memories to the fusion. */
const SERVICE_LIST_SERVICES = 3;
/** A filter that selects at most this many memories is scanned exactly. */
const EXACT_SCAN_MAX = 5000;

/** The FTS5 query for free text: each content word quoted (no operator injection), OR-ed. */
export function ftsQuery(text: string): string {
  return anyOfWords(queryWords(text));
}

export function createSearch(deps: {
  memories: MemoryStore;
  search: SearchStore;
  services: ServiceStore;
  embedding: Embedding;
  clock: Clock;
  ranking?: RankingPolicy;
  /** This instance: its memories and the fleet's are searched; every memory when omitted. */
  instance?: string;
}) {
  const { memories, search, services, embedding, clock } = deps;
  const ranking = deps.ranking ?? DEFAULT_RANKING;
  let index: VectorIndex | null = null;

  const vectorIndex = (dimension: number): VectorIndex => {
    if (!index || index.dimension !== dimension) {
      index = createVectorIndex(search, embedding.model!, dimension);
    }
    return index;
  };

  // Vectors of what each service is (its description), by name; redone when it changes.
  const serviceVectors = new Map<string, { updatedAt: number; vector: Float32Array }>();

  /**
   * Memories of the services whose description is close in meaning to the query ("my movies
   * won't stream" -> jellyfin, "a media server"), the closest services first: the third list of
   * the fusion. A service must be halfway between the floor and "related" to count.
   */
  const serviceCandidates = async (query: Float32Array, filter: SearchFilter) => {
    const described = services.described();
    const stale = described.filter((d) => serviceVectors.get(d.name)?.updatedAt !== d.updatedAt);
    if (stale.length > 0) {
      const vectors = await embedding.documents(stale.map((d) => d.description));
      if (!vectors) return [];
      stale.forEach((d, i) =>
        serviceVectors.set(d.name, { updatedAt: d.updatedAt, vector: vectors[i]! }),
      );
    }
    const close = described
      .map((d) => ({ name: d.name, cosine: dot(query, serviceVectors.get(d.name)!.vector) }))
      // Query-to-description cosines run lower than memory-to-memory ones (a description is
      // general): between the floor and "related" (0.49-0.57 for matching ops queries here).
      .filter((s) => s.cosine >= (embedding.thresholds.floor + embedding.thresholds.related) / 2)
      .filter((s) => filter.service === undefined || filter.service === s.name)
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, SERVICE_LIST_SERVICES);
    const out: { id: number; serviceCosine: number }[] = [];
    for (const s of close) {
      for (const id of search.idsOfService(s.name, filter, CANDIDATES - out.length)) {
        out.push({ id, serviceCosine: s.cosine });
      }
      if (out.length >= CANDIDATES) break;
    }
    return out;
  };

  /** Vector candidates within the filter, best first (exact cosine). */
  const semanticCandidates = (query: Float32Array, filter: SearchFilter) => {
    const model = embedding.model!;
    if (
      filter.service !== undefined ||
      filter.category !== undefined ||
      filter.scopes !== undefined ||
      (filter.visibleTo !== undefined && search.hasOtherInstances(filter.visibleTo))
    ) {
      const n = search.countWhere(filter);
      if (n <= EXACT_SCAN_MAX) {
        const rows = search.vectorsWhere(filter, model, EXACT_SCAN_MAX);
        return rankExact(
          query,
          rows.map((r) => [r.memoryId, r.vector] as [number, Uint8Array]),
          CANDIDATES,
        );
      }
    }
    const coarse = vectorIndex(query.length).candidates(query, COARSE);
    const allowed = search.idsWhere(coarse, filter);
    const vectors = search.vectorsOf(
      coarse.filter((id) => allowed.has(id)),
      model,
    );
    return rankExact(query, vectors, CANDIDATES);
  };

  const engine = {
    /** The similarity thresholds of the model in use (lexical ones when embeddings are off). */
    thresholds: () => embedding.thresholds,

    /** Warms the in-memory vector index (serve does this at start so the first search is fast). */
    prepare(): void {
      const dimension = embedding.embedder?.dimension;
      if (dimension) vectorIndex(dimension).refresh();
    },

    async search(text: string, opts: SearchOptions = {}): Promise<SearchAnswer> {
      const limit = opts.limit ?? 10;
      const filter: SearchFilter = {
        ...(opts.service !== undefined ? { service: opts.service } : {}),
        ...(opts.category !== undefined ? { category: opts.category } : {}),
        status: opts.status ?? 'active',
        ...(opts.since !== undefined ? { since: opts.since } : {}),
        ...(opts.until !== undefined ? { until: opts.until } : {}),
        ...(opts.scopes !== undefined ? { scopes: opts.scopes } : {}),
        ...(deps.instance !== undefined ? { visibleTo: deps.instance } : {}),
      };
      const t0 = performance.now();
      const queryVector =
        embedding.model && opts.only !== 'lexical' ? await embedding.query(text) : null;
      const t1 = performance.now();

      const lexical =
        opts.only === 'semantic' ? [] : search.lexical(ftsQuery(text), filter, CANDIDATES);
      const semantic = queryVector
        ? semanticCandidates(queryVector, filter).map((h) => ({ id: h.memoryId, cosine: h.cosine }))
        : [];
      const byService =
        queryVector && opts.only === undefined ? await serviceCandidates(queryVector, filter) : [];
      const candidates: Candidate[] = mergeCandidates(lexical, semantic, byService).filter(
        (c) => !opts.exclude?.has(c.id),
      );
      const byId = new Map(candidates.map((c) => [c.id, c]));
      // A lexical-only candidate that has a vector gets its cosine too (for "why" and the floor).
      if (queryVector) {
        const missing = candidates.filter((c) => c.cosine === null).map((c) => c.id);
        for (const [id, blob] of search.vectorsOf(missing, embedding.model!)) {
          byId.get(id)!.cosine = dot(queryVector, fromBlob(blob));
        }
      }
      const rows = new Map(memories.getMany(candidates.map((c) => c.id)).map((m) => [m.id, m]));
      // How much of the query each lexical match covers: its words, service and description.
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
      const now = clock.now();
      const semanticUsed = queryVector !== null;
      const floor = opts.minCosine ?? embedding.thresholds.floor;
      const results: SearchResult[] = [];
      for (const c of candidates) {
        const memory = rows.get(c.id);
        if (!memory) continue;
        // What a service is counts as evidence when the reader asked (not for unsolicited surfacing).
        const serviceFloor =
          opts.minCosine === undefined ? embedding.thresholds.related : undefined;
        if (!opts.includeBelowThreshold && !hasEvidence(c, floor, serviceFloor)) continue;
        const why = scoreCandidate(
          {
            candidate: c,
            confidence: memory.confidence,
            lastReinforcedAt: memory.lastReinforcedAt,
            importanceWeight: importanceWeight(memory.importance, memory.importanceBoost),
            now,
            semanticUsed,
          },
          ranking,
        );
        if (!opts.includeBelowThreshold && why.score < ranking.threshold) continue;
        results.push({ memory, why });
      }
      results.sort((a, b) => b.why.score - a.why.score || a.memory.id - b.memory.id);
      const t2 = performance.now();
      const mode = semanticUsed ? 'hybrid' : 'lexical';
      searchDuration.observe({ mode }, (t2 - t0) / 1000);
      return {
        results: results.slice(0, limit),
        mode,
        embedMs: t1 - t0,
        rankMs: t2 - t1,
      };
    },
  };
  return engine;
}

export type Search = ReturnType<typeof createSearch>;
