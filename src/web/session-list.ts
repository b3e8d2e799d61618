/**
 * The Sessions list's filters and pager: what the form shows back, the query string that keeps
 * the filters across pages and refreshes, and "51–100 of 1,234".
 */
import type { Context } from 'hono';

import { SESSION_STATUSES, SESSION_TRIGGERS } from '../db/index.js';
import type { AppEnv } from './context.js';
import type { WebDeps } from './deps.js';
import { type PageInfo, pageInfo } from './pagination.js';
import { filterQueryString, parseSessionQuery, type SessionQuery } from './session-query.js';
import { QUICK_RANGES } from './time-range.js';

export function sessionListQuery(
  deps: Pick<WebDeps, 'stores' | 'clock'>,
  c: Context<AppEnv>,
  requestedPage: number,
  pageSize: number,
): {
  query: SessionQuery;
  pager: PageInfo;
  view: Record<string, unknown>;
} {
  const timeZone = c.get('app').timeZone;
  const query = parseSessionQuery((n) => c.req.query(n), deps.clock.now(), timeZone);
  const pager = pageInfo(requestedPage, pageSize, deps.stores.sessions.count(query.filter));
  const qs = filterQueryString(query.raw);
  return {
    query,
    pager,
    view: {
      filters: query.raw,
      filterProblems: query.problems,
      statuses: SESSION_STATUSES,
      triggers: SESSION_TRIGGERS,
      quickRanges: QUICK_RANGES,
      timeZone,
      pager,
      // Ends with "&" when there are filters, so that "page=N" can follow.
      filterQs: qs === '' ? '' : `${qs}&`,
    },
  };
}
