/**
 * One ranking pass of /remember: embed the query (and a hypothetical answer for a vague one),
 * gather and fuse the lists, keep what has evidence, and weigh by confidence, recency, intent
 * and whether the idea was superseded.
 */
import { DAY_MS } from '../clock.js';
import type { IdeaFilter, IdeaRow, Intent } from '../db/graph/graph.js';
import { dot, queryCoverage } from '../memory/index.js';
import type { QueryAnalysis } from './query.js';
import { fuseLists, type Lists } from './remember-fuse.js';
import { entityIds, lexicalIdeas, semanticIdeas, spanIdeas } from './remember-lists.js';
import type { RankedIdea, RememberContext, RememberOptions } from './remember-types.js';
import { CANDIDATES, HALF_LIFE_DAYS } from './remember-weights.js';

export interface RankOutcome {
  ranked: RankedIdea[];
  mode: 'hybrid' | 'lexical';
  usedHyde: boolean;
  embedMs: number;
  rankMs: number;
}

export async function rankIdeas(
  ctx: RememberContext,
  a: QueryAnalysis,
  filter: IdeaFilter,
  opts: RememberOptions,
): Promise<RankOutcome> {
  const { vectors, model, weights } = ctx;
  const { rows, search } = ctx.stores;
  const t0 = performance.now();
  // The whole query is embedded: a sentence embeds better than its leftover keywords.
  const q = vectors.model ? await vectors.query(a.query) : null;
  let hydeVector: Float32Array | null = null;
  let usedHyde = false;
  if (a.vague && opts.hyde !== false && !model.offline && vectors.model) {
    const hypothetical = await model.hyde(a.query);
    if (hypothetical) {
      hydeVector = (await vectors.documents([hypothetical]))?.[0] ?? null;
      usedHyde = hydeVector !== null;
    }
  }
  const t1 = performance.now();
  // The lists are independent: read side by side (the entity list once its entities are known).
  const byEntity = entityIds(ctx, a).then(async (entities) => ({
    entity: (await search.ideasOfEntities(entities, filter, CANDIDATES)).map((id) => ({ id })),
    filter:
      !a.search && entities.length === 0
        ? (await search.latestIdeas(filter, 100)).map((id) => ({ id }))
        : [],
  }));
  const [lexical, semantic, span, hyde, entityLists] = await Promise.all([
    lexicalIdeas(ctx, a, filter),
    q && a.search ? semanticIdeas(ctx, q, filter) : [],
    a.search ? spanIdeas(ctx, q, a, filter) : [],
    hydeVector ? semanticIdeas(ctx, hydeVector, filter) : [],
    byEntity,
  ]);
  const lists: Lists = { lexical, semantic, span, ...entityLists, hyde };
  const why = fuseLists(lists, weights);
  const ids = [...why.keys()];
  const missing = q ? ids.filter((id) => why.get(id)!.cosine === null) : [];
  // A sentence is matched with the turn it was said in (BM25 reads both), so its coverage of
  // the query is counted there too: "Its password rotates monthly" is about the repository
  // the sentence before it named.
  const [missingVectors, ideaRows, relations, turns] = await Promise.all([
    vectors.ideaVectorsAwaited(missing),
    rows.ideasAwaited(ids),
    rows.relationsOf(ids),
    search.turnTexts(lists.lexical.map((h) => h.id)),
  ]);
  if (q) for (const [id, v] of missingVectors) why.get(id)!.cosine = dot(q, v);
  const ideas = new Map(ideaRows.map((i) => [i.id, i]));
  const superseded = new Set(
    relations.filter((r) => r.type === 'supersedes' && why.has(r.toId)).map((r) => r.toId),
  );
  const covers = (idea: IdeaRow) =>
    Math.max(
      queryCoverage(a.search, idea.content),
      queryCoverage(a.search, turns.get(idea.id) ?? ''),
    );
  const floor = ctx.thresholds().floor * weights.floor;
  const now = ctx.clock.now();
  const ranked: RankedIdea[] = [];
  for (const [id, w] of why) {
    const idea = ideas.get(id);
    if (!idea) continue;
    const evidence =
      lists.filter.length > 0 ||
      w.entityRank !== null ||
      (w.cosine !== null && w.cosine >= floor) ||
      (w.lexicalRank !== null && covers(idea) >= 0.3) ||
      w.hydeRank !== null;
    if (!evidence) continue;
    w.confidenceWeight = 1 - weights.confidence + weights.confidence * idea.confidence;
    w.recencyWeight = a.recency
      ? Math.max(0.3, 0.5 ** (Math.max(0, now - idea.createdAt) / DAY_MS / HALF_LIFE_DAYS))
      : 1;
    w.intentWeight = a.preferIntents.includes(idea.intent as Intent) ? 1.25 : 1;
    const score =
      w.fused *
      w.confidenceWeight *
      w.recencyWeight *
      w.intentWeight *
      (superseded.has(id) ? 0.85 : 1);
    ranked.push({ idea, score, why: w, via: null });
  }
  ranked.sort((x, y) => y.score - x.score || y.idea.id - x.idea.id);
  return {
    ranked: ranked.slice(0, opts.limit ?? 50),
    mode: q ? 'hybrid' : 'lexical',
    usedHyde,
    embedMs: t1 - t0,
    rankMs: performance.now() - t1,
  };
}
