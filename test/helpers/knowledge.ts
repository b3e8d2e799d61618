import { createEmbedder, type Embedder } from '../../src/embed/index.js';
import { createKnowledge, type Knowledge } from '../../src/knowledge/index.js';
import { type TestApp, testApp } from './db.js';

let local: Embedder | null = null;

/** The real local model (Universal Sentence Encoder lite, in a worker), one per test file. */
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

export async function closeLocalEmbedder(): Promise<void> {
  await local?.close();
  local = null;
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
