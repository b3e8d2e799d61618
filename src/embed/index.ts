/** Embedding backends behind one interface (see embedder.ts). */
export type { Embedder, EmbeddingsBackend, EmbeddingsOptions } from './embedder.js';
export { createEmbedder } from './create.js';
export { MAX_TEXT_CHARS } from './input-texts.js';
export {
  createLocalEmbedder,
  LOCAL_BATCH,
  LOCAL_DIMENSION,
  LOCAL_MODEL,
  type LocalEmbedder,
} from './local.js';
export { OLLAMA_DEFAULT_MODEL, OLLAMA_DEFAULT_URL } from './ollama.js';
export { OPENAI_DEFAULT_MODEL, OPENAI_DEFAULT_URL } from './openai.js';
export { taskPrefixes } from './task-prefixes.js';
