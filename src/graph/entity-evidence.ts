/**
 * Which entities the pages show: not an everyday or status word (not-entities.ts), and, for a
 * person or a concept (guessed from capitals, backticks or a model's say-so), named in at least
 * MIN_ENTITY_EVIDENCE different things said. A technology, file or project is named by a stronger
 * rule and shows from its first mention. A sentence repeated by every run counts once, so a
 * recurring check cannot make a word an entity by saying it every minute.
 */
import type { EntityRow, GraphStores } from '../db/graph/graph.js';
import { mayNameEntity, NOT_ENTITY_WORDS, STRONG_ENTITY_TYPES } from './not-entities.js';

/** Two different sentences: one stray capital is a guess, the same name said twice is a name. */
export const MIN_ENTITY_EVIDENCE = 2;

/** The entities most talked about, with how many different texts name them (`ideas`). */
export function topEntities(
  stores: GraphStores,
  limit: number,
): Promise<(EntityRow & { ideas: number })[]> {
  return stores.rows.entitiesByEvidence({
    limit,
    notNames: NOT_ENTITY_WORDS,
    strongTypes: STRONG_ENTITY_TYPES,
    minEvidence: MIN_ENTITY_EVIDENCE,
  });
}

/** Of these entities, those the pages show. */
export async function shownEntities<E extends EntityRow>(
  stores: GraphStores,
  entities: readonly E[],
): Promise<E[]> {
  const named = entities.filter((e) => mayNameEntity(e.name, e.type));
  const weak = named.filter((e) => !STRONG_ENTITY_TYPES.includes(e.type)).map((e) => e.id);
  const evidence =
    weak.length > 0 ? await stores.rows.entityEvidence(weak) : new Map<number, number>();
  return named.filter(
    (e) => STRONG_ENTITY_TYPES.includes(e.type) || (evidence.get(e.id) ?? 0) >= MIN_ENTITY_EVIDENCE,
  );
}
