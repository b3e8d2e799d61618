/**
 * Ollama's embedding API: `POST {base}/api/embed {"model", "input": [texts]}` answers
 * `{"model", "embeddings": [[numbers], ...], ...}` in input order; errors are `{"error": "..."}`
 * with a 4xx/5xx status (404 for a model that was never pulled).
 */
import type { Embedder } from './embedder.js';
import { joinUrl, unexpectedAnswer } from '../net/http-json.js';
import { EMBEDDINGS_HTTP, postEmbeddings } from './http-policy.js';
import { createRemoteEmbedder } from './remote.js';

export const OLLAMA_DEFAULT_URL = 'http://127.0.0.1:11434';
export const OLLAMA_DEFAULT_MODEL = 'nomic-embed-text';

export interface RemoteOptions {
  url: string;
  model: string;
  key: string | null;
  timeoutMs: number;
}

export function createOllamaEmbedder(options: RemoteOptions): Embedder {
  const who = 'ollama embeddings';
  const endpoint = joinUrl(options.url, '/api/embed');
  return createRemoteEmbedder({
    backend: 'ollama',
    model: options.model,
    who,
    async send(texts) {
      const answer = await postEmbeddings(
        who,
        endpoint,
        { model: options.model, input: texts },
        options,
      );
      const vectors = (answer as { embeddings?: unknown } | null)?.embeddings;
      if (
        !Array.isArray(vectors) ||
        vectors.length !== texts.length ||
        !vectors.every((v) => Array.isArray(v))
      ) {
        throw unexpectedAnswer(
          EMBEDDINGS_HTTP,
          who,
          `{"embeddings": [...]} with ${texts.length} vectors`,
          answer,
          { url: endpoint, key: options.key },
        );
      }
      return vectors as unknown[][];
    },
  });
}
