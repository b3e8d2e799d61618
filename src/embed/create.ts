/**
 * `WATCHKEEPER_EMBEDDINGS` -> an embedder, or null for `off` (callers then rank lexically).
 * Call it at start-up: it checks the combination of settings (a wrong one is `config_invalid`
 * naming the variable) but loads nothing and sends nothing until the first embed or warm-up.
 * Make one per process and share it: each local embedder has a model thread of its own.
 */
import { AppError } from '../errors.js';
import type { Embedder, EmbeddingsOptions } from './embedder.js';
import { createLocalEmbedder, LOCAL_LOAD_TIMEOUT_MS, LOCAL_MODEL } from './local.js';
import { createOllamaEmbedder, OLLAMA_DEFAULT_MODEL, OLLAMA_DEFAULT_URL } from './ollama.js';
import { createOpenAiEmbedder, OPENAI_DEFAULT_MODEL, OPENAI_DEFAULT_URL } from './openai.js';

export function createEmbedder(options: EmbeddingsOptions): Embedder | null {
  const { backend, timeoutMs, key } = options;
  switch (backend) {
    case 'off':
      return null;
    case 'local':
      if (options.model !== null && options.model !== LOCAL_MODEL) {
        throw new AppError(
          'config_invalid',
          `WATCHKEEPER_EMBEDDINGS_MODEL=${JSON.stringify(options.model)}: the local backend has one model, ` +
            `${LOCAL_MODEL}; for another model use WATCHKEEPER_EMBEDDINGS=ollama or openai`,
          { data: { variable: 'WATCHKEEPER_EMBEDDINGS_MODEL' } },
        );
      }
      return createLocalEmbedder({
        timeoutMs,
        loadTimeoutMs: Math.max(timeoutMs, LOCAL_LOAD_TIMEOUT_MS),
      });
    case 'ollama':
      return createOllamaEmbedder({
        url: options.url ?? OLLAMA_DEFAULT_URL,
        model: options.model ?? OLLAMA_DEFAULT_MODEL,
        key,
        timeoutMs,
      });
    case 'openai': {
      const url = options.url ?? OPENAI_DEFAULT_URL;
      if (key === null && new URL(url).hostname === new URL(OPENAI_DEFAULT_URL).hostname) {
        throw new AppError(
          'config_invalid',
          `WATCHKEEPER_EMBEDDINGS_KEY is missing: ${OPENAI_DEFAULT_URL} needs an API key ` +
            '(or point WATCHKEEPER_EMBEDDINGS_URL at an OpenAI-compatible server that needs none)',
          { data: { variable: 'WATCHKEEPER_EMBEDDINGS_KEY' } },
        );
      }
      return createOpenAiEmbedder({
        url,
        model: options.model ?? OPENAI_DEFAULT_MODEL,
        key,
        timeoutMs,
      });
    }
  }
}
