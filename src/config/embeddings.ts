/** Which embedding backend turns memories into vectors, where it is and how long it may take. */
import { z } from 'zod';

import { duration, httpUrl } from './parse.js';

export const embeddingsShape = {
  EMBEDDINGS: z.enum(['local', 'ollama', 'openai', 'off']).default('local'),
  EMBEDDINGS_URL: httpUrl.optional(),
  EMBEDDINGS_MODEL: z.string().trim().min(1).optional(),
  EMBEDDINGS_KEY: z.string().min(1).optional(),
  EMBEDDINGS_TIMEOUT: duration(100).default(10_000),
};

/** The shape `createEmbedder` (src/embed) takes; url and model null mean the backend's default. */
export interface EmbeddingsConfig {
  backend: 'local' | 'ollama' | 'openai' | 'off';
  url: string | null;
  model: string | null;
  /** Secret: never logged or shown. */
  key: string | null;
  timeoutMs: number;
}

export function embeddingsConfig(
  c: z.infer<z.ZodObject<typeof embeddingsShape>>,
): EmbeddingsConfig {
  return {
    backend: c.EMBEDDINGS,
    url: c.EMBEDDINGS_URL ?? null,
    model: c.EMBEDDINGS_MODEL ?? null,
    key: c.EMBEDDINGS_KEY ?? null,
    timeoutMs: c.EMBEDDINGS_TIMEOUT,
  };
}
