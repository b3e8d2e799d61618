/** The memory graph's stores over one database (migration 0010). */
import { createGraphSearchStore } from './graph-search.js';
import { createGraphSourceStore } from './graph-sources.js';
import { createGraphStore } from './graph-store.js';
import type { Db } from '../open.js';

export {
  createGraphSearchStore,
  type GraphHit,
  type GraphSearchStore,
  type GraphStoredVector,
  type IdeaContext,
  type IdeaFilter,
  type IdeaHit,
  isFiltered,
} from './graph-search.js';
export {
  createGraphSourceStore,
  type FileIdentity,
  GRAPH_SESSION_KINDS,
  type GraphSessionKind,
  type GraphSessionRow,
  type GraphSessionSummary,
  type GraphSourceStore,
  type IndexState,
} from './graph-sources.js';
export {
  createGraphStore,
  ENTITY_TYPES,
  type EntityRow,
  type EntityType,
  type GraphCounts,
  type GraphStore,
  type IdeaRepeat,
  type IdeaRow,
  type Intent,
  INTENTS,
  type NewIdea,
  type NewSpan,
  RELATION_TYPES,
  type RelationRow,
  type RelationType,
  type SpanRow,
} from './graph-store.js';

export interface GraphStores {
  db: Db;
  sources: ReturnType<typeof createGraphSourceStore>;
  rows: ReturnType<typeof createGraphStore>;
  search: ReturnType<typeof createGraphSearchStore>;
}

/** The graph's stores; `instance` names the one whose transcript files are read (its disk's). */
export function createGraphStores(db: Db, instance = 'local'): GraphStores {
  return {
    db,
    sources: createGraphSourceStore(db, instance),
    rows: createGraphStore(db),
    search: createGraphSearchStore(db),
  };
}
