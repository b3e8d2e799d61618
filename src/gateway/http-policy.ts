/**
 * How the model gateway's HTTP backends report a failed request: `io_failed` with
 * `data.retryable` (429, 5xx, the network), `data.retryAfterMs` and `data.timedOut`, the shape
 * the gateway's retry loop reads (see Backend in types.ts).
 */
import type { HttpPolicy } from '../net/http-json.js';

/** Statuses worth another attempt: rate limits, overload (Anthropic's 529) and server errors. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

const CHECK_KEY = ' (check WATCHKEEPER_GATEWAY_KEY)';

export const GATEWAY_HTTP: HttpPolicy = {
  code: 'io_failed',
  statusHints: { 401: CHECK_KEY, 403: CHECK_KEY },
  bodyHeadChars: 300,
  data(failure) {
    switch (failure.reason) {
      case 'timeout':
        return { retryable: false, timedOut: true };
      case 'unreachable':
        return { retryable: true };
      case 'http':
        return {
          retryable: retryableStatus(failure.status),
          status: failure.status,
          ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
        };
      default:
        return { retryable: false };
    }
  },
};
