/**
 * The one interface every embedding backend implements. Vectors come back L2-normalised, so the
 * cosine of two of them is their dot product. Failures are `AppError`s: `invalid_input` for a
 * text that cannot be embedded (empty), `embedding_failed` for a backend that is down, slow,
 * crashed or answered nonsense; callers keep working without the vector (lexical search).
 */

export type EmbeddingsBackend = 'local' | 'ollama' | 'openai';

export interface Embedder {
  readonly backend: EmbeddingsBackend;
  /** Recorded with each stored vector: a different model means the stored vectors must be redone. */
  readonly model: string;
  /** Length of every vector; null for a remote backend until its first answer. */
  readonly dimension: number | null;
  /** For search text (a query, an alert, a tool call): some models embed it differently. */
  embedQueries(texts: readonly string[]): Promise<Float32Array[]>;
  /** For stored text (a memory). */
  embedDocuments(texts: readonly string[]): Promise<Float32Array[]>;
  /**
   * Loads the local model, or asks a remote backend once, so that the first search does not pay
   * for it and `dimension` is known. Rejects like an embed call would.
   */
  warmUp(): Promise<void>;
  /** Stops the local worker; later calls reject. */
  close(): Promise<void>;
}

/** What `createEmbedder` needs: `Config['embeddings']` has this shape. */
export interface EmbeddingsOptions {
  /** `off`: no embedder at all, callers use lexical search. */
  backend: EmbeddingsBackend | 'off';
  /** Base URL of a remote backend; null for the backend's default. */
  url: string | null;
  /** Model name; null for the backend's default. */
  model: string | null;
  /** API key for a remote backend (sent as a Bearer token, never logged). */
  key: string | null;
  /** Longest wait for one answer (one HTTP request, or one batch of the local model). */
  timeoutMs: number;
}
