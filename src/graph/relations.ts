/**
 * Relation detection (seed 004 section 4.2 step 6) between a new idea and similar existing ones:
 * a change of mind supersedes ("changed from X to Y", "instead of", or the same thing with a
 * different value), an addition builds on ("additionally..."), a solution or decision after a
 * question or problem answers it, the same claim with another value in another session
 * contradicts it, and a near-duplicate elsewhere relates to it. Pure: similarities are computed
 * here from the vectors (cosine) or, without them, from the words.
 */
import type { Intent, RelationType } from '../db/graph/graph.js';
import {
  dot,
  findContradiction,
  type SimilarityThresholds,
  textSimilarity,
} from '../memory/index.js';
import type { RelationCue } from './extract.js';

export interface RelIdea {
  id: number;
  session: string;
  intent: Intent;
  content: string;
  role: 'user' | 'assistant';
  answered: boolean | null;
  sourceLine: number;
  createdAt: number;
  vector: Float32Array | null;
  /** Entity keys (`type:name`, lower-cased). */
  entities: ReadonlySet<string>;
}

export interface NewRelIdea extends RelIdea {
  cue: RelationCue;
}

export interface FoundRelation {
  toId: number;
  type: RelationType;
  similarity: number;
}

const CLAIMS: readonly Intent[] = ['decision', 'conclusion', 'solution'];
const OPEN: readonly Intent[] = ['question', 'problem'];
/** Word overlap below this is no evidence, whatever the thresholds say. */
const MIN_LEXICAL = 0.12;

export function similarity(a: RelIdea, b: RelIdea): number {
  if (a.vector && b.vector && a.vector.length === b.vector.length) return dot(a.vector, b.vector);
  return textSimilarity(a.content, b.content);
}

function sharesEntity(a: RelIdea, b: RelIdea): boolean {
  for (const e of a.entities) if (b.entities.has(e)) return true;
  return false;
}

/** Relations from `idea` (the newer) to earlier candidates; at most one of each kind but relates_to. */
export function detectRelations(
  idea: NewRelIdea,
  candidates: readonly RelIdea[],
  t: SimilarityThresholds,
): FoundRelation[] {
  const vectors = idea.vector !== null;
  const floor = vectors ? t.floor : Math.max(t.floor, MIN_LEXICAL);
  const related = t.related;
  const scored = candidates
    .filter((c) => c.id !== idea.id)
    .map((c) => ({ c, sim: similarity(idea, c) }))
    .sort((a, b) => b.sim - a.sim || b.c.id - a.c.id);
  const out: FoundRelation[] = [];
  const used = new Set<number>();
  const take = (c: RelIdea, type: RelationType, sim: number) => {
    out.push({ toId: c.id, type, similarity: sim });
    used.add(c.id);
  };

  if (CLAIMS.includes(idea.intent)) {
    const change = scored.find(
      ({ c, sim }) =>
        CLAIMS.includes(c.intent) &&
        ((sim >= related &&
          (idea.cue === 'change' || findContradiction(c.content, idea.content) !== null)) ||
          (idea.cue === 'change' && sim >= floor && sharesEntity(idea, c))),
    );
    if (change) {
      const explicit = idea.cue === 'change' || change.c.session === idea.session;
      take(change.c, explicit ? 'supersedes' : 'contradicts', change.sim);
    }
    const answer = scored.find(
      ({ c, sim }) =>
        !used.has(c.id) &&
        OPEN.includes(c.intent) &&
        c.answered !== true &&
        (sim >= related || (sim >= floor && c.session === idea.session && sharesEntity(idea, c))),
    );
    if (answer) take(answer.c, 'answers', answer.sim);
  }

  if (idea.cue === 'addition') {
    // "Additionally..." adds to what was just said: the latest related idea of the session.
    const base = scored
      .filter(({ c }) => c.session === idea.session && !used.has(c.id))
      .sort((a, b) => b.c.sourceLine - a.c.sourceLine || b.c.id - a.c.id)
      .slice(0, 5)
      .find(({ c, sim }) => sim >= floor || sharesEntity(idea, c));
    if (base) take(base.c, 'builds_on', base.sim);
  }

  let relates = 0;
  for (const { c, sim } of scored) {
    if (relates >= 2 || sim < t.duplicate) break;
    if (used.has(c.id) || c.session === idea.session || idea.intent === 'context') continue;
    take(c, 'relates_to', sim);
    relates += 1;
  }
  return out;
}
