/**
 * @module knowledge: the memory service (observe, reinforce, supersede, decay, curation), its one
 * hybrid search, the session's memory block, in-session surfacing and the services catalog,
 * composed over the stores and an optional embedder.
 */
import type { Clock } from '../clock.js';
import { OPS_SCOPE, type Stores } from '../db/index.js';
import type { Embedder } from '../embed/embedder.js';
import type { MemoryJudge, MemoryPolicy } from '../memory/index.js';
import { createPendingEmbedder } from './embed-pending.js';
import { createEmbedding } from './embedding.js';
import { createInjection } from './injection.js';
import { createMemoryService, type ShareRules } from './memory/service.js';
import { createSearch } from './search.js';
import { createServices } from './services.js';
import { createToolSurfacing } from './tool-surfacing.js';

export { type EmbedProgress, type PendingEmbedder } from './embed-pending.js';
export { type Embedding } from './embedding.js';
export {
  type InjectedMemory,
  type Injection,
  type SessionBlock,
  type SessionQuery,
} from './injection.js';
export {
  type Judgement,
  type MemoryEdit,
  type MergeOutcome,
  type MemoryPatch,
  type MemoryService,
  type Observation,
  type ObserveOutcome,
  type ShareRules,
} from './memory/service.js';
export { type CutReason, type CutResult } from './search-rank.js';
export {
  EXPLAINED,
  ftsQuery,
  type Search,
  type SearchAnswer,
  type SearchOptions,
  type SearchResult,
} from './search.js';
export { lookupCatalog } from './service-catalog.js';
export { MAX_DESCRIPTION_LENGTH, type ServiceDetail, type Services } from './services.js';
export {
  HOOK_BUDGET_TOKENS,
  type ToolCall,
  toolQuery,
  type ToolSurfacing,
} from './tool-surfacing.js';

export function createKnowledge(deps: {
  stores: Pick<
    Stores,
    | 'memories'
    | 'events'
    | 'search'
    | 'services'
    | 'surfacing'
    | 'scopes'
    | 'instance'
    | 'tombstones'
  >;
  embedder: Embedder | null;
  clock: Clock;
  policy?: MemoryPolicy;
  /** Which new memories are shared with the whole fleet (config.fleet). */
  fleet?: ShareRules;
  /** The model's opinion on re-observations the rules cannot place (gateway/memory-judge.ts). */
  judge?: MemoryJudge;
}) {
  const { stores, clock } = deps;
  const instance = stores.instance;
  const embedding = createEmbedding({ embedder: deps.embedder, events: stores.events, clock });
  const services = createServices({ store: stores.services, clock });
  const search = createSearch({
    memories: stores.memories,
    search: stores.search,
    services: stores.services,
    embedding,
    clock,
    instance,
  });
  const memory = createMemoryService({
    memories: stores.memories,
    events: stores.events,
    search: stores.search,
    tombstones: stores.tombstones,
    embedding,
    services,
    clock,
    ...(deps.policy ? { policy: deps.policy } : {}),
    instance,
    ...(deps.fleet ? { share: deps.fleet } : {}),
    ...(deps.judge ? { judge: deps.judge } : {}),
  });
  const opsScopes = async () => [OPS_SCOPE, ...(await stores.scopes.shared())];
  const injection = createInjection({
    memories: stores.memories,
    events: stores.events,
    surfacing: stores.surfacing,
    service: memory,
    search,
    clock,
    opsScopes,
    instance,
  });
  const tools = createToolSurfacing({ search, surfacing: stores.surfacing, clock, opsScopes });
  const pending = createPendingEmbedder({ search: stores.search, embedding, clock });
  return { embedding, services, search, memory, injection, tools, pending };
}

export type Knowledge = ReturnType<typeof createKnowledge>;
