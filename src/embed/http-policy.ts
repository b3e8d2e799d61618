/**
 * How the HTTP embedding backends post and report a failed request: `embedding_failed`, a hint
 * naming the variable to check, and `data.reason` (timeout, unreachable, http, answer).
 */
import { bearer, type HttpPolicy, postJson } from '../net/http-json.js';

export const EMBEDDINGS_HTTP: HttpPolicy = {
  code: 'embedding_failed',
  statusHints: {
    401: ' (check WATCHKEEPER_EMBEDDINGS_KEY)',
    403: ' (check WATCHKEEPER_EMBEDDINGS_KEY)',
    404: ' (check WATCHKEEPER_EMBEDDINGS_URL and WATCHKEEPER_EMBEDDINGS_MODEL)',
    429: ' (rate limited)',
  },
  bodyHeadChars: 200,
  data: (failure) => ({ ...failure }),
};

/** One request to an embedding backend, the key (if any) sent as a bearer token. */
export function postEmbeddings(
  who: string,
  url: URL,
  body: unknown,
  o: { key: string | null; timeoutMs: number },
): Promise<unknown> {
  return postJson(EMBEDDINGS_HTTP, who, url, body, {
    headers: bearer(o.key),
    key: o.key,
    timeoutMs: o.timeoutMs,
  });
}
