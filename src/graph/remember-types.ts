/**
 * What /remember is asked and what it answers: options, the ranked ideas with why each ranked
 * where it did, and the answer assembled within the budget.
 */
import type { Clock } from '../clock.js';
import type { GraphStores } from '../db/graph/graph.js';
import type { SimilarityThresholds } from '../memory/index.js';
import type { AnswerGroup } from './answer.js';
import type { GraphModel } from './model-port.js';
import type { QueryAnalysis } from './query.js';
import type { RankedIdea } from './ranked-idea.js';
import type { GraphVectors } from './vectors.js';
import type { ListWeights } from './remember-weights.js';

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

// The ranked idea is shared with the answer's assembly (answer.ts), which this file imports.
export type { RankedIdea, Via, Why } from './ranked-idea.js';

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

export interface RememberDeps {
  stores: GraphStores;
  vectors: GraphVectors;
  model: GraphModel;
  thresholds: () => SimilarityThresholds;
  clock: Clock;
  /** Other weights for the fusion (the retrieval benchmark compares them). */
  weights?: Partial<ListWeights>;
}

/** What the ranking steps share: the deps with the fusion weights resolved. */
export interface RememberContext extends RememberDeps {
  weights: ListWeights;
}
