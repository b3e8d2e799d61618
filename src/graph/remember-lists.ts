/**
 * The ranked lists /remember fuses: ideas by vector (exact within a small filtered set), by their
 * words and their topic's, by the topics (spans) that match, and the entities the query names.
 */
import { type IdeaFilter, isFiltered } from '../db/graph/graph.js';
import { ftsQuery } from '../knowledge/index.js';
import { rankExact } from '../knowledge/vector-index.js';
import { dot, queryCoverage } from '../memory/index.js';
import type { QueryAnalysis } from './query.js';
import type { RememberContext } from './remember-types.js';
import {
  CANDIDATES,
  COMMON_ENTITY_SHARE,
  EXACT_SCAN_MAX,
  K,
  PER_SPAN,
  SPANS,
} from './remember-weights.js';

export async function semanticIdeas(
  ctx: RememberContext,
  q: Float32Array,
  filter: IdeaFilter,
): Promise<{ id: number; cosine: number }[]> {
  const { search } = ctx.stores;
  const { vectors } = ctx;
  if (isFiltered(filter) && (await search.countIdeas(filter)) <= EXACT_SCAN_MAX) {
    const rowsOf = await search.ideaVectorsWhere(filter, vectors.model!, EXACT_SCAN_MAX);
    return rankExact(
      q,
      rowsOf.map((r) => [r.memoryId, r.vector] as [number, Uint8Array]),
      CANDIDATES,
    ).map((h) => ({ id: h.memoryId, cosine: h.cosine }));
  }
  return vectors.nearestIdeasAwaited(
    q,
    CANDIDATES,
    isFiltered(filter) ? (ids) => search.ideasWhere(ids, filter) : undefined,
  );
}

/** Entities the query names: by the rules, and any stored entity spelled like a query word. */
export async function entityIds(ctx: RememberContext, a: QueryAnalysis): Promise<number[]> {
  const { rows, search } = ctx.stores;
  const spellings = new Set<string>(a.entities.map((e) => e.name));
  const words = a.query.match(/[A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9]/g) ?? [];
  for (let i = 0; i < words.length; i += 1) {
    if (words[i]!.length >= 3) spellings.add(words[i]!);
    if (i + 1 < words.length) spellings.add(`${words[i]} ${words[i + 1]}`);
  }
  // Every spelling in one statement, and the total beside it.
  const [named, all] = await Promise.all([
    rows.entitiesNamed([...spellings]),
    spellings.size > 0 ? search.countIdeas({}) : Promise.resolve(0),
  ]);
  const ids = new Set(named.map((e) => e.id));
  if (ids.size === 0) return [];
  const total = Math.max(1, all);
  const counts = await rows.ideaCounts([...ids]);
  return [...ids].filter(
    (id) => (counts.get(id) ?? 0) <= Math.max(50, total * COMMON_ENTITY_SHARE),
  );
}

export async function spanIdeas(
  ctx: RememberContext,
  q: Float32Array | null,
  a: QueryAnalysis,
  filter: IdeaFilter,
): Promise<{ id: number }[]> {
  const { rows, search } = ctx.stores;
  const { vectors } = ctx;
  const [byLexical, nearest] = await Promise.all([
    a.search ? search.lexicalSpans(ftsQuery(a.search), 20, filter.sessions) : [],
    q ? vectors.nearestSpans(q, filter.sessions ? 100 : 20) : [],
  ]);
  let byVector = nearest;
  if (filter.sessions && byVector.length > 0) {
    const wanted = new Set(filter.sessions);
    const inScope = new Set(
      (await rows.spans(byVector.map((h) => h.id)))
        .filter((sp) => wanted.has(sp.session))
        .map((sp) => sp.id),
    );
    byVector = byVector.filter((h) => inScope.has(h.id)).slice(0, 20);
  }
  const fused = new Map<number, number>();
  byLexical.forEach((h, i) => fused.set(h.id, (fused.get(h.id) ?? 0) + 1 / (K + i + 1)));
  byVector.forEach((h, i) => fused.set(h.id, (fused.get(h.id) ?? 0) + 1 / (K + i + 1)));
  const top = [...fused.entries()]
    .sort((x, y) => y[1] - x[1])
    .slice(0, SPANS)
    .map(([id]) => id);
  // The ideas of every top span, the filter and their vectors: three statements for them all
  // (each span's ideas are then taken in the order a read of that span alone gives).
  const all = await rows.ideasOfSpans(top);
  const allIds = all.map((i) => i.id);
  const [allowed, vecs] = await Promise.all([
    search.ideasWhere(allIds, filter),
    q ? vectors.ideaVectorsAwaited(allIds) : new Map<number, Float32Array>(),
  ]);
  const out: { id: number }[] = [];
  for (const spanId of top) {
    const ideas = all.filter((i) => i.spanId === spanId && allowed.has(i.id));
    if (q) {
      ideas.sort(
        (x, y) =>
          (vecs.get(y.id) ? dot(q, vecs.get(y.id)!) : -1) -
          (vecs.get(x.id) ? dot(q, vecs.get(x.id)!) : -1),
      );
    } else if (a.search) {
      ideas.sort((x, y) => queryCoverage(a.search, y.content) - queryCoverage(a.search, x.content));
    }
    for (const i of ideas.slice(0, PER_SPAN)) out.push({ id: i.id });
  }
  return out;
}

/**
 * Ideas by their words and the words around them (FTS5 BM25), then by how much their topic
 * matches as a whole: a topic where the query's words come up again and again is more likely
 * the one asked about than a stray sentence that shares a word.
 */
export async function lexicalIdeas(
  ctx: RememberContext,
  a: QueryAnalysis,
  filter: IdeaFilter,
): Promise<{ id: number; score: number }[]> {
  const { weights } = ctx;
  if (!a.search) return [];
  const hits = await ctx.stores.search.lexicalIdeasAwaited(
    ftsQuery(a.search),
    filter,
    CANDIDATES,
    weights.columns,
  );
  if (hits.length === 0) return [];
  const best = Math.max(...hits.map((h) => -h.bm25), 1e-9);
  const bySpan = new Map<number, number>();
  for (const h of hits) {
    if (h.spanId !== null) bySpan.set(h.spanId, (bySpan.get(h.spanId) ?? 0) + -h.bm25 / best);
  }
  const bestSpan = Math.max(...bySpan.values(), 1e-9);
  return hits
    .map((h) => ({
      id: h.id,
      score:
        -h.bm25 / best +
        weights.spanPrior * ((h.spanId !== null ? bySpan.get(h.spanId)! : 0) / bestSpan),
    }))
    .sort((x, y) => y.score - x.score || y.id - x.id);
}
