/**
 * The memory graph's search indexes: full text over ideas and spans (graph-text-search.ts), the
 * lists a ranking narrows to (graph-idea-lists.ts) and one vector per idea and per span summary
 * (graph-vector-rows.ts), over one statement cache. Candidate lists only:
 * graph/remember.ts ranks them. On PostgreSQL the full-text tables are this instance's local
 * copies (postgres/local-text-index.ts) and the words around an idea live in idea_context.
 */
import { statementCache, type Db } from '../open.js';
import { createGraphIdeaLists } from './graph-idea-lists.js';
import { createGraphTextSearch } from './graph-text-search.js';
import { createGraphVectorRows } from './graph-vector-rows.js';

export { isFiltered } from './graph-filter.js';
export * from './graph-search-types.js';

export function createGraphSearchStore(db: Db) {
  const cached = statementCache(db);
  return {
    ...createGraphTextSearch(db, cached),
    ...createGraphIdeaLists(db, cached),
    ...createGraphVectorRows(db, cached),
  };
}

export type GraphSearchStore = ReturnType<typeof createGraphSearchStore>;
