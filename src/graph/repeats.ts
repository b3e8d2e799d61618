/**
 * An idea said again and again (every run of a recurring check says the same sentence) is shown
 * once, with how often, in how many conversations, and when it was first and last said. The store
 * decides which texts are the same (graph-repeats.ts); this keeps the first of each in a list.
 */
import type { GraphStores, IdeaRepeat, IdeaRow } from '../db/graph/graph.js';

export type { IdeaRepeat } from '../db/graph/graph.js';

export interface SeenIdea {
  /** The one shown: the first of its text in the list given (the newest, or the best ranked). */
  idea: IdeaRow;
  seen: IdeaRepeat;
}

/** One of each text, in the order given, each with its repeats; at most `limit`. */
export async function onceEach(
  stores: GraphStores,
  ideas: readonly IdeaRow[],
  limit = Infinity,
): Promise<SeenIdea[]> {
  const repeats = await stores.rows.repeatsOf(ideas.map((i) => i.id));
  const out: SeenIdea[] = [];
  const keys = new Set<string>();
  for (const idea of ideas) {
    if (out.length >= limit) break;
    const seen = repeats.get(idea.id) ?? once(idea);
    if (keys.has(seen.key)) continue;
    keys.add(seen.key);
    out.push({ idea, seen });
  }
  return out;
}

/** An idea deleted meanwhile (a file re-read) answers for itself only. */
function once(idea: IdeaRow): IdeaRepeat {
  return {
    key: `#${idea.id}`,
    count: 1,
    sessions: 1,
    firstAt: idea.createdAt,
    lastAt: idea.createdAt,
  };
}
