/**
 * The memory graph's rows (migration 0010): spans (a tree per session), ideas, entities with the
 * spellings that name them, and relations between ideas, one file each. Full text and vectors
 * are in graph-search.ts; what was read from which file is in graph-sources.ts.
 */
import { type Db, statementCache } from '../open.js';
import { createGraphCounts } from './graph-counts.js';
import { createEntityRows } from './graph-entities.js';
import { createEntityIdeaRows } from './graph-entity-ideas.js';
import { createIdeaReads } from './graph-idea-reads.js';
import { createIdeaRows } from './graph-ideas.js';
import { createRelationRows } from './graph-relations.js';
import { createRepeatRows } from './graph-repeats.js';
import { createSpanRows } from './graph-spans.js';

export * from './graph-rows.js';
export type { IdeaRepeat } from './graph-repeats.js';

export function createGraphStore(db: Db) {
  const cached = statementCache(db);
  return {
    ...createSpanRows(db, cached),
    ...createIdeaRows(db, cached),
    ...createIdeaReads(db, cached),
    ...createEntityRows(db, cached),
    ...createEntityIdeaRows(db, cached),
    ...createRelationRows(db, cached),
    ...createGraphCounts(db, cached),
    ...createRepeatRows(db),
  };
}

export type GraphStore = ReturnType<typeof createGraphStore>;
