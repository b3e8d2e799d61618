/**
 * /remember (seed 004 section 5): the query analysed, then several strategies fused by reciprocal
 * rank fusion: vectors over ideas, vectors and words over span summaries (coarse: a matching
 * topic brings its ideas), BM25 over ideas, the ideas naming an entity the query names, and, for a
 * vague query, a hypothetical answer's vector (HyDE, through the model port; off without a model).
 * Then confidence weighting, temporal decay when the query asks for recency, graph expansion
 * along supersedes / builds on / answers / contradicts from the top matches, and assembly within
 * the caller's token budget (answer.ts).
 */
import type { Clock } from '../clock.js';
import {
  type GraphStores,
  type IdeaFilter,
  type IdeaRow,
  type Intent,
  isFiltered,
  type RelationType,
} from '../db/graph.js';
import { ftsQuery } from '../knowledge/index.js';
import { rankExact } from '../knowledge/vector-index.js';
import { DAY_MS } from '../clock.js';
import { dot, queryCoverage, type SimilarityThresholds } from '../memory/index.js';
import { assembleAnswer, type AnswerGroup } from './answer.js';
import type { GraphModel } from './model-port.js';
import { analyseQuery, type QueryAnalysis } from './query.js';
import type { RankedIdea, Via, Why } from './ranked-idea.js';
import type { GraphVectors } from './vectors.js';

export type { RankedIdea, Via, Why } from './ranked-idea.js';

export interface RememberOptions {
  /** Token budget of the answer (characters / 4); default 1,000. */
  budget?: number;
  /** Only these sessions. */
  sessions?: readonly string[];
  /** How many ranked ideas to consider (default 50). */
  limit?: number;
  /** Use HyDE for a vague query when a model is configured (default true). */
  hyde?: boolean;
}

export interface RememberAnswer {
  query: string;
  analysis: QueryAnalysis;
  mode: 'hybrid' | 'lexical';
  /** Every idea ranked (expansions included), best first: what the answer was chosen from. */
  ranked: RankedIdea[];
  groups: AnswerGroup[];
  text: string;
  tokens: number;
  budget: number;
  /** Said when the answer is not what was asked for (nothing in that period, say). */
  note: string | null;
  usedHyde: boolean;
  embedMs: number;
  rankMs: number;
}

export const DEFAULT_BUDGET = 1000;

const K = 60;
/**
 * Weights of the fusion, chosen with bench/graph.js on LoCoMo: there the words carry recall (an
 * idea's own and those around it), the small local model's vectors add a point or two at a low
 * weight, and entity and topic lists only help when weighted low (a name in every other turn).
 */
export const DEFAULT_WEIGHTS = {
  lexical: 1,
  semantic: 0.3,
  span: 0.1,
  entity: 0.1,
  hyde: 0.3,
  filter: 1,
  /** How much the words matching elsewhere in an idea's topic add to its own match. */
  spanPrior: 0.4,
  /** How much confidence weighs: the score is multiplied by 1 - k + k x confidence. */
  confidence: 0.25,
  /** Share of the model's cosine floor a result found by meaning alone needs. */
  floor: 0.5,
  /** bm25() weights of an idea's own words, its turn's, the turns next to it, two away. */
  columns: [1, 1, 0.5, 0.25] as readonly number[],
};
export type ListWeights = typeof DEFAULT_WEIGHTS;
const CANDIDATES = 200;
const SPANS = 5;
const PER_SPAN = 40;
const EXACT_SCAN_MAX = 5000;
/** An entity that this share of all ideas name says little about any of them. */
const COMMON_ENTITY_SHARE = 0.05;
const EXPAND_FROM = 5;
const FOLLOWED: readonly RelationType[] = ['supersedes', 'builds_on', 'answers', 'contradicts'];
const HALF_LIFE_DAYS = 14;
/**
 * Matching turns whose reply is brought in, and what the reply's score is of theirs: the turn
 * said right after a match often holds the answer (a question and what was said back to it), so
 * it ranks right under the match it came from. (The turn before a match was measured on LoCoMo
 * too: it took the places of better matches.)
 */
const REPLIES_OF = 5;
const REPLY_SHARE = 0.9;

export interface RememberDeps {
  stores: GraphStores;
  vectors: GraphVectors;
  model: GraphModel;
  thresholds: () => SimilarityThresholds;
  clock: Clock;
  /** Other weights for the fusion (the retrieval benchmark compares them). */
  weights?: Partial<ListWeights>;
}

interface Lists {
  lexical: { id: number }[];
  semantic: { id: number; cosine: number }[];
  span: { id: number }[];
  entity: { id: number }[];
  hyde: { id: number }[];
  filter: { id: number }[];
}

export function createRemember(deps: RememberDeps) {
  const { stores, vectors, model } = deps;
  const { rows, search } = stores;
  const WEIGHTS = { ...DEFAULT_WEIGHTS, ...deps.weights };

  const semanticIdeas = (q: Float32Array, filter: IdeaFilter) => {
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
  };

  /** Entities the query names: by the rules, and any stored entity spelled like a query word. */
  const entityIds = (a: QueryAnalysis): number[] => {
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
  };

  const spanIdeas = (q: Float32Array | null, a: QueryAnalysis, filter: IdeaFilter) => {
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
        ideas.sort(
          (x, y) => queryCoverage(a.search, y.content) - queryCoverage(a.search, x.content),
        );
      }
      for (const i of ideas.slice(0, PER_SPAN)) out.push({ id: i.id });
    }
    return out;
  };

  /**
   * Ideas by their words and the words around them (FTS5 BM25), then by how much their topic
   * matches as a whole: a topic where the query's words come up again and again is more likely
   * the one asked about than a stray sentence that shares a word.
   */
  const lexicalIdeas = (a: QueryAnalysis, filter: IdeaFilter) => {
    if (!a.search) return [];
    const hits = search.lexicalIdeas(ftsQuery(a.search), filter, CANDIDATES, WEIGHTS.columns);
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
          WEIGHTS.spanPrior * ((h.spanId !== null ? bySpan.get(h.spanId)! : 0) / bestSpan),
      }))
      .sort((x, y) => y.score - x.score || y.id - x.id);
  };

  const rank = async (a: QueryAnalysis, filter: IdeaFilter, opts: RememberOptions) => {
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
    const entities = entityIds(a);
    const lists: Lists = {
      lexical: lexicalIdeas(a, filter),
      semantic: q && a.search ? semanticIdeas(q, filter) : [],
      span: a.search ? spanIdeas(q, a, filter) : [],
      entity: search.ideasOfEntities(entities, filter, CANDIDATES).map((id) => ({ id })),
      hyde: hydeVector ? semanticIdeas(hydeVector, filter) : [],
      filter:
        !a.search && entities.length === 0
          ? search.latestIdeas(filter, 100).map((id) => ({ id }))
          : [],
    };
    const why = new Map<number, Why>();
    const get = (id: number): Why => {
      let w = why.get(id);
      if (!w) {
        w = {
          lexicalRank: null,
          semanticRank: null,
          cosine: null,
          spanRank: null,
          entityRank: null,
          hydeRank: null,
          fused: 0,
          confidenceWeight: 1,
          recencyWeight: 1,
          intentWeight: 1,
        };
        why.set(id, w);
      }
      return w;
    };
    const fuse = (list: { id: number }[], weight: number, set: (w: Why, rank: number) => void) =>
      list.forEach((h, i) => {
        const w = get(h.id);
        set(w, i + 1);
        w.fused += weight / (K + i + 1);
      });
    fuse(lists.lexical, WEIGHTS.lexical, (w, r) => (w.lexicalRank ??= r));
    fuse(lists.semantic, WEIGHTS.semantic, (w, r) => (w.semanticRank ??= r));
    lists.semantic.forEach((h) => (get(h.id).cosine = h.cosine));
    fuse(lists.span, WEIGHTS.span, (w, r) => (w.spanRank ??= r));
    fuse(lists.entity, WEIGHTS.entity, (w, r) => (w.entityRank ??= r));
    fuse(lists.hyde, WEIGHTS.hyde, (w, r) => (w.hydeRank ??= r));
    fuse(lists.filter, WEIGHTS.filter, () => undefined);
    const ids = [...why.keys()];
    if (q) {
      const missing = ids.filter((id) => why.get(id)!.cosine === null);
      for (const [id, v] of vectors.ideaVectors(missing)) why.get(id)!.cosine = dot(q, v);
    }
    const ideas = new Map(rows.ideas(ids).map((i) => [i.id, i]));
    const superseded = new Set(
      rows
        .relationsOf(ids)
        .filter((r) => r.type === 'supersedes' && why.has(r.toId))
        .map((r) => r.toId),
    );
    // A sentence is matched with the turn it was said in (BM25 reads both), so its coverage of
    // the query is counted there too: "Its password rotates monthly" is about the repository
    // the sentence before it named.
    const turns = search.turnTexts(lists.lexical.map((h) => h.id));
    const covers = (idea: IdeaRow) =>
      Math.max(
        queryCoverage(a.search, idea.content),
        queryCoverage(a.search, turns.get(idea.id) ?? ''),
      );
    const floor = deps.thresholds().floor * WEIGHTS.floor;
    const now = deps.clock.now();
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
      w.confidenceWeight = 1 - WEIGHTS.confidence + WEIGHTS.confidence * idea.confidence;
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
      mode: (q ? 'hybrid' : 'lexical') as 'hybrid' | 'lexical',
      usedHyde,
      embedMs: t1 - t0,
      rankMs: performance.now() - t1,
    };
  };

  /** Graph expansion: what superseded, built on, answered or contradicts the top matches. */
  const expand = (ranked: RankedIdea[]): RankedIdea[] => {
    const have = new Map(ranked.map((r) => [r.idea.id, r]));
    const top = ranked.slice(0, EXPAND_FROM);
    const rels = rows
      .relationsOf(top.map((r) => r.idea.id))
      .filter((r) => FOLLOWED.includes(r.type));
    const wanted = new Map<
      number,
      { from: RankedIdea; relation: RelationType; direction: Via['direction'] }
    >();
    for (const r of rels) {
      for (const [mine, other, direction] of [
        [r.fromId, r.toId, 'in'],
        [r.toId, r.fromId, 'out'],
      ] as const) {
        const from = have.get(mine);
        if (!from || have.has(other) || wanted.has(other) || !top.includes(from)) continue;
        wanted.set(other, { from, relation: r.type, direction });
      }
    }
    const added = rows.ideas([...wanted.keys()]).map((idea) => {
      const w = wanted.get(idea.id)!;
      return {
        idea,
        score: w.from.score * 0.9,
        why: w.from.why,
        via: { from: w.from.idea.id, relation: w.relation, direction: w.direction },
      };
    });
    return [...ranked, ...added].sort((x, y) => y.score - x.score || y.idea.id - x.idea.id);
  };

  /** The turns said right after the best matches, in the same topic. */
  const replies = (ranked: RankedIdea[]): RankedIdea[] => {
    const byId = new Map(ranked.map((r) => [r.idea.id, r]));
    const turns = new Set<string>();
    for (const r of ranked) {
      if (r.via) continue;
      const turn = `${r.idea.session}\u0000${r.idea.sourceLine}`;
      if (turns.has(turn)) continue;
      if (turns.size >= REPLIES_OF) break;
      turns.add(turn);
      for (const idea of rows.turnAfter(r.idea.session, r.idea.sourceLine, r.idea.spanId)) {
        const score = r.score * REPLY_SHARE;
        const known = byId.get(idea.id);
        if (known && known.score >= score) continue;
        byId.set(idea.id, {
          idea,
          score,
          why: known?.why ?? r.why,
          via: known ? known.via : { from: r.idea.id, relation: 'reply', direction: 'out' },
        });
      }
    }
    return [...byId.values()].sort((x, y) => y.score - x.score || y.idea.id - x.idea.id);
  };

  return async function remember(
    query: string,
    opts: RememberOptions = {},
  ): Promise<RememberAnswer> {
    const analysis = analyseQuery(query, deps.clock.now());
    const budget = opts.budget ?? DEFAULT_BUDGET;
    const filter: IdeaFilter = {
      ...(analysis.intents.length > 0 ? { intents: analysis.intents } : {}),
      ...(analysis.openOnly ? { openOnly: true } : {}),
      ...(analysis.since !== null ? { since: analysis.since } : {}),
      ...(analysis.until !== null ? { until: analysis.until } : {}),
      ...(opts.sessions && opts.sessions.length > 0 ? { sessions: opts.sessions } : {}),
    };
    let out = await rank(analysis, filter, opts);
    let note: string | null = null;
    if (out.ranked.length === 0 && analysis.temporal !== null) {
      const { since: _since, until: _until, ...wider } = filter;
      out = await rank(analysis, wider, opts);
      if (out.ranked.length > 0)
        note = `Nothing was said ${analysis.temporal}; these are the closest matches from any time.`;
    }
    // A query for ideas of some intent wants those, not the turns around them.
    const filtered = analysis.intents.length > 0 || analysis.openOnly;
    const ranked = expand(filtered ? out.ranked : replies(out.ranked));
    const assembled = assembleAnswer(query, ranked, budget, note, stores);
    return {
      query,
      analysis,
      mode: out.mode,
      ranked,
      groups: assembled.groups,
      text: assembled.text,
      tokens: assembled.tokens,
      budget,
      note,
      usedHyde: out.usedHyde,
      embedMs: out.embedMs,
      rankMs: out.rankMs,
    };
  };
}

export type Remember = ReturnType<typeof createRemember>;
