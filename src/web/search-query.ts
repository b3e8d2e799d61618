/**
 * The parameters of `GET /api/v1/memories/search`, checked: every value that is not understood
 * is a 400 naming its field (an empty query, a limit out of range, a service nothing names).
 */
import { AppError } from '../errors.js';
import type { SearchOptions } from '../knowledge/index.js';
import { CATEGORIES, isCategory } from '../memory/index.js';
import { checkServiceName } from '../text-rules.js';
import { MAX_QUERY_LENGTH, MEMORY_STATUSES } from './memory-query.js';

export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_LIMIT = 10;

// A date (midnight UTC) or a date-time with its zone: a time without a zone would mean whatever
// zone the server runs in.
const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

export interface SearchRequest {
  query: string;
  options: SearchOptions & { limit: number };
}

function bad(field: string, message: string): AppError {
  return new AppError('usage', `${field}: ${message}`, { data: { field } });
}

function time(field: string, raw: string | undefined): number | undefined {
  const v = (raw ?? '').trim();
  if (v === '') return undefined;
  const ms = ISO_TIME.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) {
    throw bad(
      field,
      `"${v.slice(0, 40)}" is not a date (2024-05-01) or a date-time with a zone (2024-05-01T12:00:00Z)`,
    );
  }
  return ms;
}

/** The search from a query string; throws AppError `usage` naming the first bad field. */
export async function parseSearchQuery(
  q: (name: string) => string | undefined,
  isKnownService: (name: string) => Promise<boolean>,
): Promise<SearchRequest> {
  const query = (q('q') ?? '').trim();
  if (query === '') throw bad('q', 'give the words to search for');
  if (query.length > MAX_QUERY_LENGTH) {
    throw bad('q', `is ${query.length} characters, over the limit of ${MAX_QUERY_LENGTH}`);
  }

  const rawLimit = (q('limit') ?? '').trim();
  let limit = DEFAULT_SEARCH_LIMIT;
  if (rawLimit !== '') {
    limit = /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= MAX_SEARCH_LIMIT)) {
      throw bad('limit', `must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
    }
  }

  const options: SearchRequest['options'] = { limit, status: 'active' };

  const rawService = (q('service') ?? '').trim();
  if (rawService.toLowerCase() === 'general') options.service = null;
  else if (rawService !== '') {
    const checked = checkServiceName(rawService);
    if (!checked.ok) throw bad('service', checked.reason);
    if (!(await isKnownService(checked.name))) {
      throw bad('service', `no memory, event or cooldown names "${checked.name}"`);
    }
    options.service = checked.name;
  }

  const category = (q('category') ?? '').trim().toLowerCase();
  if (category !== '') {
    if (!isCategory(category)) throw bad('category', `must be one of ${CATEGORIES.join(', ')}`);
    options.category = category;
  }

  const status = (q('status') ?? '').trim().toLowerCase();
  if (status !== '') {
    if (!(MEMORY_STATUSES as readonly string[]).includes(status)) {
      throw bad('status', `must be one of ${MEMORY_STATUSES.join(', ')}`);
    }
    options.status = status as (typeof MEMORY_STATUSES)[number];
  }

  const explain = (q('explain') ?? '').trim().toLowerCase();
  if (explain !== '') {
    if (!['1', 'true', '0', 'false'].includes(explain)) throw bad('explain', 'must be 1 or 0');
    options.explain = explain === '1' || explain === 'true';
  }

  const since = time('since', q('since'));
  const until = time('until', q('until'));
  if (since !== undefined && until !== undefined && until <= since) {
    throw bad('until', 'must be later than since');
  }
  if (since !== undefined) options.since = since;
  if (until !== undefined) options.until = until;
  return { query, options };
}
