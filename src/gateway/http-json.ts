/**
 * One JSON POST to a model API with a deadline, and errors that say what to do: which address,
 * the HTTP status and the head of the body, whether a retry may help (429, 5xx, the network) and
 * after how long (Retry-After). The key is sent, never shown, not even when the server echoes it.
 */
import { AppError } from '../errors.js';

const BODY_HEAD_CHARS = 300;

/** `base` (which may carry a path prefix) joined with `path`. */
export function joinUrl(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}

function shown(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function bodyHead(text: string, key: string | null): string {
  let t = text;
  if (key && key.length >= 4) t = t.split(key).join('[key]');
  // eslint-disable-next-line no-control-regex
  t = t.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return t.length > BODY_HEAD_CHARS ? `${t.slice(0, BODY_HEAD_CHARS)}…` : t || '(empty body)';
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const s = Number(header);
  return Number.isFinite(s) && s >= 0 ? Math.round(s * 1000) : undefined;
}

/** Statuses worth another attempt: rate limits, overload (Anthropic's 529) and server errors. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export async function postModelJson(
  who: string,
  url: URL,
  body: unknown,
  o: {
    headers: Record<string, string>;
    key: string | null;
    timeoutMs: number;
    signal?: AbortSignal;
  },
): Promise<unknown> {
  let status: number;
  let text: string;
  let retryAfter: string | null;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...o.headers },
      body: JSON.stringify(body),
      // One deadline for the whole exchange, the body included; shutdown ends it too.
      signal: o.signal
        ? AbortSignal.any([AbortSignal.timeout(o.timeoutMs), o.signal])
        : AbortSignal.timeout(o.timeoutMs),
    });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    text = await res.text();
  } catch (err) {
    const name = (err as { name?: string } | null)?.name;
    if (o.signal?.aborted) {
      throw new AppError('io_failed', `${who}: cancelled: watchkeeper is shutting down`, {
        cause: err,
        data: { retryable: false },
      });
    }
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new AppError(
        'io_failed',
        `${who}: no answer from ${shown(url)} within ${o.timeoutMs / 1000}s`,
        { cause: err, data: { retryable: false, timedOut: true } },
      );
    }
    const cause = (err as { cause?: { message?: string } } | null)?.cause;
    throw new AppError(
      'io_failed',
      `${who}: cannot reach ${shown(url)}: ${cause?.message ?? (err as Error).message}`,
      { cause: err, data: { retryable: true } },
    );
  }
  if (status < 200 || status > 299) {
    const after = retryAfterMs(retryAfter);
    const hint = status === 401 || status === 403 ? ' (check WATCHKEEPER_GATEWAY_KEY)' : '';
    throw new AppError(
      'io_failed',
      `${who}: HTTP ${status}${hint} from ${shown(url)}: ${bodyHead(text, o.key)}`,
      {
        data: {
          retryable: retryableStatus(status),
          status,
          ...(after !== undefined ? { retryAfterMs: after } : {}),
        },
      },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError(
      'io_failed',
      `${who}: the answer from ${shown(url)} is not JSON: ${bodyHead(text, o.key)}`,
      { data: { retryable: false } },
    );
  }
}

/** The error for an answer of the wrong shape. */
export function badAnswer(who: string, expected: string, got: unknown): AppError {
  return new AppError(
    'io_failed',
    `${who}: unexpected answer: expected ${expected}, got ${bodyHead(JSON.stringify(got) ?? String(got), null)}`,
    { data: { retryable: false } },
  );
}
