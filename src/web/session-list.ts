/**
 * The Sessions list's filters and pager: what the form shows back, the query string that keeps
 * the filters across pages and refreshes, and "51–100 of 1,234" (runs: a chain is listed when one
 * of its sessions matches).
 */
import type { Context } from 'hono';

import { SESSION_STATUSES, SESSION_TRIGGERS, type SessionRow } from '../db/index.js';
import type { AppEnv } from './context.js';
import type { WebDeps } from './deps.js';
import { instanceChoices } from './instance-filter.js';
import { type PageInfo, pageInfo } from './pagination.js';
import { filterQueryString, parseSessionQuery, type SessionQuery } from './session-query.js';
import { QUICK_RANGES } from './time-range.js';

/**
 * Why this sidecar cannot stop the session: it runs on another instance (which alone holds its
 * process); null when the session is this instance's, or not running.
 */
export function otherInstance(
  s: Pick<SessionRow, 'id' | 'status' | 'instance'>,
  instance: string,
): string | null {
  if (s.status !== 'running' || s.instance === instance) return null;
  return `session ${s.id} runs on instance ${s.instance}; stop it there`;
}

export async function sessionListQuery(
  deps: Pick<WebDeps, 'stores' | 'clock'>,
  c: Context<AppEnv>,
  requestedPage: number,
  pageSize: number,
): Promise<{
  query: SessionQuery;
  pager: PageInfo;
  view: Record<string, unknown>;
}> {
  const timeZone = c.get('app').timeZone;
  const query = parseSessionQuery((n) => c.req.query(n), deps.clock.now(), timeZone);
  const [count, instances] = await Promise.all([
    deps.stores.sessions.countChainsAwaited(query.filter),
    deps.stores.sessions.instancesAwaited(),
  ]);
  const pager = pageInfo(requestedPage, pageSize, count);
  const qs = filterQueryString(query.raw);
  return {
    query,
    pager,
    view: {
      filters: query.raw,
      filterProblems: query.problems,
      statuses: SESSION_STATUSES,
      triggers: SESSION_TRIGGERS,
      // The instance select: every instance with sessions (a fleet shares one database).
      instances: instanceChoices(instances, query.raw.instance),
      quickRanges: QUICK_RANGES,
      timeZone,
      pager,
      // Ends with "&" when there are filters, so that "page=N" can follow.
      filterQs: qs === '' ? '' : `${qs}&`,
    },
  };
}
