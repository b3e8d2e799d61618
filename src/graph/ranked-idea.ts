/**
 * An idea as /remember ranks it, with why it ranks there: shared by the ranking (remember.ts)
 * and the answer's assembly (answer.ts), so neither imports the other's types.
 */
import type { IdeaRow, RelationType } from '../db/graph/graph.js';

export interface Why {
  lexicalRank: number | null;
  semanticRank: number | null;
  cosine: number | null;
  spanRank: number | null;
  entityRank: number | null;
  hydeRank: number | null;
  fused: number;
  confidenceWeight: number;
  recencyWeight: number;
  intentWeight: number;
}

export interface RankedIdea {
  idea: IdeaRow;
  score: number;
  why: Why;
  /** Reached by graph expansion from another result, along this relation. */
  via: Via | null;
}

/**
 * `out`: this idea -> `from` (it supersedes, builds on, answers it, or is the reply to it);
 * `in`: `from` -> this idea. `reply` is no stored relation: the turn said right after another.
 */
export interface Via {
  from: number;
  relation: RelationType | 'reply';
  direction: 'out' | 'in';
}
