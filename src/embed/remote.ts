/**
 * What the HTTP backends share: checked texts, the model's task prefixes, requests of at most
 * `REMOTE_BATCH` texts one after the other, the dimension learned from the first answer and held
 * to afterwards.
 */
import { AppError } from '../errors.js';
import { timeEmbedding } from '../metrics/index.js';
import type { Embedder, EmbeddingsBackend } from './embedder.js';
import { checkTexts } from './input-texts.js';
import { taskPrefixes } from './task-prefixes.js';
import { toUnitVectors } from './unit-vectors.js';

/** Texts per request: small enough that a CPU-only Ollama answers well within the timeout. */
export const REMOTE_BATCH = 32;

export interface RemoteSpec {
  backend: EmbeddingsBackend;
  model: string;
  /** Names the backend in errors, e.g. `ollama embeddings`. */
  who: string;
  /** One request: raw vectors in the order of `texts`, as many as there are texts. */
  send(texts: string[]): Promise<readonly ArrayLike<unknown>[]>;
}

export function createRemoteEmbedder(spec: RemoteSpec): Embedder {
  const prefixes = taskPrefixes(spec.model);
  let dimension: number | null = null;
  let closed = false;

  async function embed(texts: readonly string[], prefix: string): Promise<Float32Array[]> {
    if (closed) throw new AppError('embedding_failed', `${spec.who}: the embedder is closed`);
    const input = checkTexts(texts).map((t) => prefix + t);
    const out: Float32Array[] = [];
    for (let i = 0; i < input.length; i += REMOTE_BATCH) {
      const chunk = input.slice(i, i + REMOTE_BATCH);
      const raw = await spec.send(chunk);
      const vectors = toUnitVectors(raw, spec.who, dimension);
      dimension ??= vectors[0]!.length;
      out.push(...vectors);
    }
    return out;
  }

  return {
    backend: spec.backend,
    model: spec.model,
    get dimension() {
      return dimension;
    },
    embedQueries: (texts) =>
      timeEmbedding({ backend: spec.backend, kind: 'query' }, () => embed(texts, prefixes.query)),
    embedDocuments: (texts) =>
      timeEmbedding({ backend: spec.backend, kind: 'document' }, () =>
        embed(texts, prefixes.document),
      ),
    async warmUp() {
      if (dimension === null) await embed(['warm-up'], prefixes.query);
    },
    async close() {
      closed = true;
    },
  };
}
