/**
 * One JSON POST to a remote embedding backend, with a deadline and errors an operator can act
 * on: which backend, which address, what went wrong (refused, no answer in time, the HTTP status
 * and the head of the body). The API key is sent, never shown: not in an error, not in a log.
 */
import { AppError } from '../errors.js';

export interface PostOptions {
  key: string | null;
  timeoutMs: number;
}

const BODY_HEAD_CHARS = 200;

/** The address as shown in errors: no user, password or query string. */
export function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** `base` (which may carry a path prefix, e.g. behind a proxy) joined with `path`. */
export function joinUrl(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** Printable, short, and without the key even if the server echoed it. */
export function bodyHead(text: string, key: string | null): string {
  let t = text;
  if (key && key.length >= 4) t = t.split(key).join('[key]');
  // eslint-disable-next-line no-control-regex
  t = t.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return t.length > BODY_HEAD_CHARS ? `${t.slice(0, BODY_HEAD_CHARS)}…` : t || '(empty body)';
}

const STATUS_HINTS: Record<number, string> = {
  401: ' (check WATCHKEEPER_EMBEDDINGS_KEY)',
  403: ' (check WATCHKEEPER_EMBEDDINGS_KEY)',
  404: ' (check WATCHKEEPER_EMBEDDINGS_URL and WATCHKEEPER_EMBEDDINGS_MODEL)',
  429: ' (rate limited)',
};

/** `Retry-After` in seconds (the form rate limiters send); an HTTP date is ignored. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const s = Number(header);
  return Number.isFinite(s) && s >= 0 ? Math.round(s * 1000) : undefined;
}

function transportError(who: string, url: URL, err: unknown, timeoutMs: number): AppError {
  const name = (err as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new AppError(
      'embedding_failed',
      `${who}: no answer from ${shownUrl(url)} within ${seconds(timeoutMs)}`,
      { cause: err, data: { reason: 'timeout' } },
    );
  }
  // fetch reports "fetch failed" and keeps the useful part (ECONNREFUSED, ENOTFOUND...) in cause.
  const cause = (err as { cause?: { message?: string; code?: string } } | null)?.cause;
  const detail = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new AppError('embedding_failed', `${who}: cannot reach ${shownUrl(url)}: ${detail}`, {
    cause: err,
    data: { reason: 'unreachable', ...(cause?.code ? { errno: cause.code } : {}) },
  });
}

/** POSTs `body` as JSON and returns the parsed answer; throws `embedding_failed` otherwise. */
export async function postJson(
  who: string,
  url: URL,
  body: unknown,
  options: PostOptions,
): Promise<unknown> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
  };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  // One deadline for the whole exchange, body included: a server that sends headers and then
  // stalls is as stuck as one that never answers.
  const signal = AbortSignal.timeout(options.timeoutMs);
  let status: number;
  let text: string;
  let retryAfter: string | null;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
    });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    text = await res.text();
  } catch (err) {
    throw transportError(who, url, err, options.timeoutMs);
  }
  if (status < 200 || status > 299) {
    const after = retryAfterMs(retryAfter);
    throw new AppError(
      'embedding_failed',
      `${who}: HTTP ${status}${STATUS_HINTS[status] ?? ''} from ${shownUrl(url)}: ${bodyHead(text, options.key)}`,
      { data: { reason: 'http', status, ...(after !== undefined ? { retryAfterMs: after } : {}) } },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError(
      'embedding_failed',
      `${who}: the answer from ${shownUrl(url)} is not JSON: ${bodyHead(text, options.key)}`,
      { data: { reason: 'answer' } },
    );
  }
}

/** The error for a JSON answer of the wrong shape. */
export function unexpectedAnswer(
  who: string,
  url: URL,
  expected: string,
  got: unknown,
  key: string | null,
): AppError {
  return new AppError(
    'embedding_failed',
    `${who}: unexpected answer from ${shownUrl(url)}: expected ${expected}, got ${bodyHead(JSON.stringify(got) ?? String(got), key)}`,
    { data: { reason: 'answer' } },
  );
}
