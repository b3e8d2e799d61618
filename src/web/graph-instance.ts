/**
 * The memory graph over the dashboard's database: one per app, built from what the web layer is
 * given (the store's connection and the knowledge layer's embedder), so nothing new is injected.
 * Its model jobs stay offline here: a page view never spends money on the gateway.
 */
import { createGraph, type Graph } from '../graph/index.js';
import type { WebDeps } from './deps.js';

const graphs = new WeakMap<WebDeps, Graph>();

export function graphOf(deps: WebDeps): Graph {
  let graph = graphs.get(deps);
  if (!graph) {
    graph = createGraph({
      db: deps.stores.db,
      embedding: deps.knowledge.embedding,
      clock: deps.clock,
      dataDir: deps.config.dataDir,
      sessions: deps.stores.sessions,
      maxLineBytes: deps.config.maxLineBytes,
    });
    graphs.set(deps, graph);
  }
  return graph;
}
