/**
 * One JSON POST to a remote API with a deadline, and errors an operator can act on: which
 * caller, which address, what went wrong (refused, no answer in time, the HTTP status and the
 * head of the body, Retry-After). The key is sent, never shown: not in an error, not even when
 * the server echoes it. Below both the embedding backends and the model gateway's backends; each
 * brings its own error code, hints and error data (an `HttpPolicy`).
 */
import { AppError, type ErrorCode } from '../errors.js';

/** What went wrong, for the caller's policy to turn into the error's data. */
export type PostFailure =
  | { reason: 'cancelled' }
  | { reason: 'timeout' }
  | { reason: 'unreachable'; errno?: string }
  | { reason: 'http'; status: number; retryAfterMs?: number }
  | { reason: 'answer' };

/** How one family of callers reports a failed POST. */
export interface HttpPolicy {
  code: ErrorCode;
  /** Added after `HTTP <status>`, e.g. which variable to check on a 401. */
  statusHints: Readonly<Record<number, string>>;
  /** How much of a body an error quotes. */
  bodyHeadChars: number;
  data(failure: PostFailure): Record<string, unknown>;
}

export interface PostOptions {
  headers: Record<string, string>;
  /** Sent in a header by the caller; here only so that it is never shown. */
  key: string | null;
  timeoutMs: number;
  /** Aborted when watchkeeper shuts down. */
  signal?: AbortSignal;
}

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

/** `Authorization: Bearer KEY` when there is a key. */
export function bearer(key: string | null): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** Printable, short, and without the key even if the server echoed it. */
export function bodyHead(text: string, key: string | null, chars: number): string {
  let t = text;
  if (key && key.length >= 4) t = t.split(key).join('[key]');
  // eslint-disable-next-line no-control-regex
  t = t.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return t.length > chars ? `${t.slice(0, chars)}…` : t || '(empty body)';
}

/** `Retry-After` in seconds (the form rate limiters send); an HTTP date is ignored. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const s = Number(header);
  return Number.isFinite(s) && s >= 0 ? Math.round(s * 1000) : undefined;
}

function fail(
  policy: HttpPolicy,
  message: string,
  failure: PostFailure,
  cause?: unknown,
): AppError {
  return new AppError(policy.code, message, {
    ...(cause !== undefined ? { cause } : {}),
    data: policy.data(failure),
  });
}

function transportError(
  policy: HttpPolicy,
  who: string,
  url: URL,
  err: unknown,
  o: PostOptions,
): AppError {
  if (o.signal?.aborted) {
    return fail(
      policy,
      `${who}: cancelled: watchkeeper is shutting down`,
      { reason: 'cancelled' },
      err,
    );
  }
  const name = (err as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return fail(
      policy,
      `${who}: no answer from ${shownUrl(url)} within ${seconds(o.timeoutMs)}`,
      { reason: 'timeout' },
      err,
    );
  }
  // fetch reports "fetch failed" and keeps the useful part (ECONNREFUSED, ENOTFOUND...) in cause.
  const cause = (err as { cause?: { message?: string; code?: string } } | null)?.cause;
  const detail = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return fail(
    policy,
    `${who}: cannot reach ${shownUrl(url)}: ${detail}`,
    { reason: 'unreachable', ...(cause?.code ? { errno: cause.code } : {}) },
    err,
  );
}

/** POSTs `body` as JSON and returns the parsed answer; throws the policy's AppError otherwise. */
export async function postJson(
  policy: HttpPolicy,
  who: string,
  url: URL,
  body: unknown,
  o: PostOptions,
): Promise<unknown> {
  // One deadline for the whole exchange, body included: a server that sends headers and then
  // stalls is as stuck as one that never answers. Shutdown ends it too.
  const deadline = AbortSignal.timeout(o.timeoutMs);
  let status: number;
  let text: string;
  let retryAfter: string | null;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...o.headers },
      body: JSON.stringify(body),
      signal: o.signal ? AbortSignal.any([deadline, o.signal]) : deadline,
    });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    text = await res.text();
  } catch (err) {
    throw transportError(policy, who, url, err, o);
  }
  if (status < 200 || status > 299) {
    const after = retryAfterMs(retryAfter);
    throw fail(
      policy,
      `${who}: HTTP ${status}${policy.statusHints[status] ?? ''} from ${shownUrl(url)}: ${bodyHead(text, o.key, policy.bodyHeadChars)}`,
      { reason: 'http', status, ...(after !== undefined ? { retryAfterMs: after } : {}) },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw fail(
      policy,
      `${who}: the answer from ${shownUrl(url)} is not JSON: ${bodyHead(text, o.key, policy.bodyHeadChars)}`,
      { reason: 'answer' },
    );
  }
}

/** The error for a JSON answer of the wrong shape; `url` names the address when given. */
export function unexpectedAnswer(
  policy: HttpPolicy,
  who: string,
  expected: string,
  got: unknown,
  o: { url?: URL; key?: string | null } = {},
): AppError {
  const from = o.url ? ` from ${shownUrl(o.url)}` : '';
  const head = bodyHead(JSON.stringify(got) ?? String(got), o.key ?? null, policy.bodyHeadChars);
  return fail(policy, `${who}: unexpected answer${from}: expected ${expected}, got ${head}`, {
    reason: 'answer',
  });
}
