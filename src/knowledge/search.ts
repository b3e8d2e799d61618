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
  commonOf,
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
  mergeCandidates,
  queryWords,
  type RankingPolicy,
  type ScoreParts,
} from '../memory/index.js';
import { searchDuration } from '../metrics/index.js';
import type { Embedding } from './embedding.js';
import { CANDIDATES, createCandidateLists } from './search-candidates.js';
import { COVERED_WORDS, type CutResult, noteCoverage, rankCandidates } from './search-rank.js';

type WordCounts = ReturnType<SearchStore['wordCounts']>;

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
  /** Also say which candidates were cut, and why (`--explain`, `explain=1`). */
  explain?: boolean;
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
  /** With `explain`: the candidates that did not come back, best first, at most EXPLAINED. */
  cut?: CutResult[];
}

/** How many cut candidates an explained search lists. */
export const EXPLAINED = 50;

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
  const lists = createCandidateLists({ search, services, embedding });
  // Words in most memories weigh nothing in BM25 but would make it score every row they are in.
  const lexicalList = (text: string, filter: SearchFilter, found: WordCounts) => {
    const common = commonOf(found);
    const match = anyOfWords(queryWords(text).filter((w) => !common.has(w)));
    return search.lexicalAwaited(match, filter, CANDIDATES);
  };

  const engine = {
    /** The similarity thresholds of the model in use (lexical ones when embeddings are off). */
    thresholds: () => embedding.thresholds,

    /**
     * Warms the vector index (serve does this at start so the first search is fast): this
     * process's own, or with pgvector the database's HNSW index, made if missing (settles when
     * it is; searches meanwhile compare every vector).
     */
    async prepare(): Promise<void> {
      const dimension = embedding.embedder?.dimension;
      if (!dimension) return;
      if (search.vectorsInDatabase) await search.vectorIndexAwaited(dimension);
      else lists.vectorIndex(dimension).refresh();
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

      // How many memories hold each query word: the FTS5 query's common words and their weights.
      await search.textCurrentAwaited();
      const found = search.wordCounts(queryWords(text, COVERED_WORDS));
      // The three lists at once: on PostgreSQL their reads are awaited side by side.
      const [lexical, semantic, byService] = await Promise.all([
        opts.only === 'semantic' ? [] : lexicalList(text, filter, found),
        queryVector
          ? lists
              .semantic(queryVector, filter)
              .then((hits) => hits.map((h) => ({ id: h.memoryId, cosine: h.cosine })))
          : [],
        queryVector && opts.only === undefined ? lists.byService(queryVector, filter) : [],
      ]);
      const candidates: Candidate[] = mergeCandidates(lexical, semantic, byService).filter(
        (c) => !opts.exclude?.has(c.id),
      );
      const byId = new Map(candidates.map((c) => [c.id, c]));
      // A lexical-only candidate that has a vector gets its cosine too (for "why" and the floor).
      // Read awaited, all at once: on PostgreSQL the event loop goes on meanwhile.
      const missing = candidates.filter((c) => c.cosine === null).map((c) => c.id);
      // What the lexical matches' services are (their descriptions weigh in their coverage).
      const lexicalIds = candidates.filter((c) => c.lexicalRank !== null).map((c) => c.id);
      const [vectors, read, descriptions] = await Promise.all([
        queryVector ? search.vectorsOfAwaited(missing, embedding.model!) : new Map(),
        memories.getManyAwaited(candidates.map((c) => c.id)),
        services.descriptionsOfMemoriesAwaited(lexicalIds),
      ]);
      for (const [id, blob] of vectors) byId.get(id)!.cosine = dot(queryVector!, fromBlob(blob));
      const rows = new Map(read.map((m) => [m.id, m]));
      noteCoverage(text, found, candidates, rows, descriptions, (ids) => search.nearOf(ids));
      const semanticUsed = queryVector !== null;
      const cut: CutResult[] | undefined = opts.explain ? [] : undefined;
      const results = rankCandidates(
        candidates,
        rows,
        {
          floor: opts.minCosine ?? embedding.thresholds.floor,
          // What a service is counts as evidence when the reader asked (not for unsolicited surfacing).
          serviceFloor: opts.minCosine === undefined ? embedding.thresholds.related : undefined,
          includeBelowThreshold: opts.includeBelowThreshold ?? false,
          now: clock.now(),
          semanticUsed,
          lists: {
            lexical: lexical.length > 0,
            semantic: semantic.length > 0,
            service: byService.length > 0,
          },
          ranking,
        },
        cut,
      );
      const t2 = performance.now();
      const mode = semanticUsed ? 'hybrid' : 'lexical';
      searchDuration.observe({ mode }, (t2 - t0) / 1000);
      return {
        results: results.slice(0, limit),
        mode,
        embedMs: t1 - t0,
        rankMs: t2 - t1,
        ...(cut ? { cut: explainCut(results, limit, cut) } : {}),
      };
    },
  };
  return engine;
}

/** The results past the limit (outranked) and the refused candidates, best first. */
function explainCut(
  results: { memory: MemoryRow; why: ScoreParts }[],
  limit: number,
  refused: CutResult[],
): CutResult[] {
  const outranked = results.slice(limit).map((r, i) => ({
    ...r,
    reason: 'outranked' as const,
    detail: `ranked ${limit + i + 1}, past the limit of ${limit}`,
  }));
  return [...outranked, ...refused].slice(0, EXPLAINED);
}

export type Search = ReturnType<typeof createSearch>;
