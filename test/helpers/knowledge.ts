import { createEmbedder, type Embedder } from '../../src/embed/index.js';
import { createKnowledge, type Knowledge } from '../../src/knowledge/index.js';
import { type TestApp, testApp } from './db.js';

let local: Embedder | null = null;

/**
 * The real local model (Universal Sentence Encoder lite, in a worker thread), one per test
 * process: vitest runs a worker's files in one process (vitest.config.ts), so the model loads
 * once per worker. It stays open; its thread is unreferenced while idle and holds nothing up.
 */
export function localEmbedder(): Embedder {
  local ??= createEmbedder({
    backend: 'local',
    url: null,
    model: null,
    key: null,
    timeoutMs: 60_000,
  });
  return local!;
}

export interface KnowledgeApp extends TestApp {
  knowledge: Knowledge;
}

/** A fresh store with the knowledge layer over it, using the given embedder (null: off). */
export function knowledgeApp(embedder: Embedder | null): KnowledgeApp {
  const app = testApp();
  const knowledge = createKnowledge({ stores: app.stores, embedder, clock: app.clock });
  return { ...app, knowledge, keeper: knowledge.memory };
}
