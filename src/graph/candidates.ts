/**
 * The ideas a new idea is compared with (seed 004 section 4.2 step 6): the session's latest and
 * the nearest anywhere, by meaning or else by words. Within one batch's transaction the same
 * ideas come up again and again (the latest of the session, a topic's nearest), so each is read
 * from the database once and then kept, with the answers given to its question as they are
 * written; what was just stored is known without reading it back.
 */
import type { GraphStores } from '../db/graph/graph.js';
import { queryWords } from '../memory/index.js';
import type { RelIdea } from './relations.js';
import type { GraphVectors } from './vectors.js';

/** How many of the session's latest ideas a new idea is compared with. */
const RECENT = 30;
/** How many of the nearest ideas anywhere. */
const NEAREST = 10;

export function entityKeys(list: readonly { name: string; type: string }[]): Set<string> {
  return new Set(list.map((e) => `${e.type}:${e.name.toLowerCase()}`));
}

/** For one transaction: ideas change only through `stored` and `answered` meanwhile. */
export function createCandidates(stores: GraphStores, vectors: GraphVectors) {
  const known = new Map<number, RelIdea>();

  /** The ideas with these ids that exist, read once each. */
  const load = (ids: readonly number[]): RelIdea[] => {
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      const list = stores.rows.ideas(missing);
      const vecs = vectors.ideaVectors(list.map((i) => i.id));
      const ents = stores.rows.entitiesOf(list.map((i) => i.id));
      for (const i of list) {
        known.set(i.id, {
          id: i.id,
          session: i.session,
          intent: i.intent,
          content: i.content,
          role: i.role,
          answered: i.answered,
          sourceLine: i.sourceLine,
          createdAt: i.createdAt,
          vector: vecs.get(i.id) ?? null,
          entities: entityKeys(ents.get(i.id) ?? []),
        });
      }
    }
    return ids.flatMap((id) => known.get(id) ?? []);
  };

  return {
    load,

    /** An idea just written, as reading it back would give it. */
    stored(idea: RelIdea): void {
      const { id, session, intent, content, role, answered, sourceLine, createdAt } = idea;
      const { vector, entities } = idea;
      known.set(id, {
        id,
        session,
        intent,
        content,
        role,
        answered,
        sourceLine,
        createdAt,
        vector,
        entities,
      });
    },

    /** A question was answered (rows.setAnswered). */
    answered(id: number): void {
      const idea = known.get(id);
      if (idea && idea.intent === 'question') idea.answered = true;
    },

    /** The session's latest ideas and the nearest ideas anywhere (by meaning, else by words). */
    of(idea: RelIdea): RelIdea[] {
      const recent = stores.rows.recentIdeaIds(idea.session, RECENT + 1);
      const nearest = idea.vector
        ? vectors.nearestIdeas(idea.vector, NEAREST + 1).map((h) => h.id)
        : stores.search.nearestByWords(queryWords(idea.content), NEAREST + 1).map((h) => h.id);
      const wanted = [...new Set([...recent, ...nearest])].filter((id) => id !== idea.id);
      return load(wanted).filter(
        (c) => c.session !== idea.session || c.sourceLine < idea.sourceLine,
      );
    },
  };
}

export type Candidates = ReturnType<typeof createCandidates>;
