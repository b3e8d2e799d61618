/**
 * OpenAI's embeddings API, and every server that copies it (LM Studio, vLLM, LiteLLM, Ollama's
 * /v1...): `POST {base}/v1/embeddings {"model", "input": [texts], "encoding_format": "float"}`
 * with `Authorization: Bearer KEY` answers `{"data": [{"embedding": [numbers], "index": i}], ...}`;
 * errors are `{"error": {"message", "type", "code"}}` with a 4xx/5xx status.
 */
import type { Embedder } from './embedder.js';
import { joinUrl, unexpectedAnswer } from '../net/http-json.js';
import { EMBEDDINGS_HTTP, postEmbeddings } from './http-policy.js';
import type { RemoteOptions } from './ollama.js';
import { createRemoteEmbedder } from './remote.js';

export const OPENAI_DEFAULT_URL = 'https://api.openai.com';
export const OPENAI_DEFAULT_MODEL = 'text-embedding-3-small';

/** Such servers are often documented with a base URL that already ends in /v1: accept both. */
export function openAiEndpoint(base: string): URL {
  return /\/v1\/*$/.test(new URL(base).pathname)
    ? joinUrl(base, '/embeddings')
    : joinUrl(base, '/v1/embeddings');
}

export function createOpenAiEmbedder(options: RemoteOptions): Embedder {
  const who = 'openai embeddings';
  const endpoint = openAiEndpoint(options.url);
  return createRemoteEmbedder({
    backend: 'openai',
    model: options.model,
    who,
    async send(texts) {
      const answer = await postEmbeddings(
        who,
        endpoint,
        { model: options.model, input: texts, encoding_format: 'float' },
        options,
      );
      const data = (answer as { data?: unknown } | null)?.data;
      const bad = () =>
        unexpectedAnswer(
          EMBEDDINGS_HTTP,
          who,
          `{"data": [{"embedding": [...], "index": i}]} with ${texts.length} items`,
          answer,
          { url: endpoint, key: options.key },
        );
      if (!Array.isArray(data) || data.length !== texts.length) throw bad();
      // The index says which input an item belongs to; the order of the list is not promised.
      const vectors: unknown[][] = new Array<unknown[]>(texts.length);
      data.forEach((item: unknown, position) => {
        const { embedding, index = position } = (item ?? {}) as {
          embedding?: unknown;
          index?: unknown;
        };
        if (
          !Array.isArray(embedding) ||
          typeof index !== 'number' ||
          !Number.isInteger(index) ||
          index < 0 ||
          index >= texts.length ||
          vectors[index] !== undefined
        ) {
          throw bad();
        }
        vectors[index] = embedding;
      });
      return vectors;
    },
  });
}
