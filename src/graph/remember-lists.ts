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

export function semanticIdeas(ctx: RememberContext, q: Float32Array, filter: IdeaFilter) {
  const { search } = ctx.stores;
  const { vectors } = ctx;
  if (isFiltered(filter) && search.countIdeas(filter) <= EXACT_SCAN_MAX) {
    const rowsOf = search.ideaVectorsWhere(filter, vectors.model!, EXACT_SCAN_MAX);
    return rankExact(
      q,
      rowsOf.map((r) => [r.memoryId, r.vector] as [number, Uint8Array]),
      CANDIDATES,
    ).map((h) => ({ id: h.memoryId, cosine: h.cosine }));
  }
  return vectors.nearestIdeas(
    q,
    CANDIDATES,
    isFiltered(filter) ? (ids) => search.ideasWhere(ids, filter) : undefined,
  );
}

/** Entities the query names: by the rules, and any stored entity spelled like a query word. */
export function entityIds(ctx: RememberContext, a: QueryAnalysis): number[] {
  const { rows, search } = ctx.stores;
  const spellings = new Set<string>(a.entities.map((e) => e.name));
  const words = a.query.match(/[A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9]/g) ?? [];
  for (let i = 0; i < words.length; i += 1) {
    if (words[i]!.length >= 3) spellings.add(words[i]!);
    if (i + 1 < words.length) spellings.add(`${words[i]} ${words[i + 1]}`);
  }
  const ids = new Set<number>();
  for (const s of spellings) for (const e of rows.entitiesNamed(s)) ids.add(e.id);
  if (ids.size === 0) return [];
  const total = Math.max(1, search.countIdeas({}));
  const counts = rows.ideaCounts([...ids]);
  return [...ids].filter(
    (id) => (counts.get(id) ?? 0) <= Math.max(50, total * COMMON_ENTITY_SHARE),
  );
}

export function spanIdeas(
  ctx: RememberContext,
  q: Float32Array | null,
  a: QueryAnalysis,
  filter: IdeaFilter,
) {
  const { rows, search } = ctx.stores;
  const { vectors } = ctx;
  const byLexical = a.search ? search.lexicalSpans(ftsQuery(a.search), 20, filter.sessions) : [];
  let byVector = q ? vectors.nearestSpans(q, filter.sessions ? 100 : 20) : [];
  if (filter.sessions && byVector.length > 0) {
    const wanted = new Set(filter.sessions);
    const inScope = new Set(
      rows
        .spans(byVector.map((h) => h.id))
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
  const out: { id: number }[] = [];
  for (const spanId of top) {
    let ideas = rows.ideasOfSpans([spanId]);
    const allowed = search.ideasWhere(
      ideas.map((i) => i.id),
      filter,
    );
    ideas = ideas.filter((i) => allowed.has(i.id));
    if (q) {
      const vecs = vectors.ideaVectors(ideas.map((i) => i.id));
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
export function lexicalIdeas(ctx: RememberContext, a: QueryAnalysis, filter: IdeaFilter) {
  const { weights } = ctx;
  if (!a.search) return [];
  const hits = ctx.stores.search.lexicalIdeas(
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
