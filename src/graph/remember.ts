/**
 * /remember (seed 004 section 5): the query analysed, then several strategies fused by reciprocal
 * rank fusion: vectors over ideas, vectors and words over span summaries (coarse: a matching
 * topic brings its ideas), BM25 over ideas, the ideas naming an entity the query names, and, for a
 * vague query, a hypothetical answer's vector (HyDE, through the model port; off without a model).
 * Then confidence weighting, temporal decay when the query asks for recency, graph expansion
 * along supersedes / builds on / answers / contradicts from the top matches, and assembly within
 * the caller's token budget (answer.ts).
 */
import type { IdeaFilter } from '../db/graph/graph.js';
import { assembleAnswer } from './answer.js';
import { analyseQuery } from './query.js';
import { expandRanked, withReplies } from './remember-expand.js';
import { rankIdeas } from './remember-rank.js';
import type {
  RememberAnswer,
  RememberContext,
  RememberDeps,
  RememberOptions,
} from './remember-types.js';
import { DEFAULT_BUDGET, DEFAULT_WEIGHTS } from './remember-weights.js';

export type {
  RankedIdea,
  RememberAnswer,
  RememberDeps,
  RememberOptions,
  Via,
  Why,
} from './remember-types.js';
export { DEFAULT_BUDGET, DEFAULT_WEIGHTS, type ListWeights } from './remember-weights.js';

export function createRemember(deps: RememberDeps) {
  const ctx: RememberContext = { ...deps, weights: { ...DEFAULT_WEIGHTS, ...deps.weights } };
  const { stores } = ctx;

  return async function remember(
    query: string,
    opts: RememberOptions = {},
  ): Promise<RememberAnswer> {
    const analysis = analyseQuery(query, ctx.clock.now());
    const budget = opts.budget ?? DEFAULT_BUDGET;
    const filter: IdeaFilter = {
      ...(analysis.intents.length > 0 ? { intents: analysis.intents } : {}),
      ...(analysis.openOnly ? { openOnly: true } : {}),
      ...(analysis.since !== null ? { since: analysis.since } : {}),
      ...(analysis.until !== null ? { until: analysis.until } : {}),
      ...(opts.sessions && opts.sessions.length > 0 ? { sessions: opts.sessions } : {}),
    };
    let out = await rankIdeas(ctx, analysis, filter, opts);
    let note: string | null = null;
    if (out.ranked.length === 0 && analysis.temporal !== null) {
      const { since: _since, until: _until, ...wider } = filter;
      out = await rankIdeas(ctx, analysis, wider, opts);
      if (out.ranked.length > 0)
        note = `Nothing was said ${analysis.temporal}; these are the closest matches from any time.`;
    }
    // A query for ideas of some intent wants those, not the turns around them.
    const filtered = analysis.intents.length > 0 || analysis.openOnly;
    const ranked = await expandRanked(
      stores.rows,
      filtered ? out.ranked : await withReplies(stores.rows, out.ranked),
    );
    const assembled = await assembleAnswer(query, ranked, budget, note, stores);
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
