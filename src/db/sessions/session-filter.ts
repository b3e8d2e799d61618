/** The Sessions list filters (status, trigger, tier, start time, instance) as a WHERE clause. */
import type { SessionStatus, SessionTrigger } from './session-types.js';

export interface SessionFilter {
  status?: SessionStatus;
  trigger?: SessionTrigger;
  tier?: number;
  /** started_at from (inclusive) and to (exclusive), epoch ms. */
  from?: number;
  to?: number;
  /** Only the sessions this instance ran. */
  instance?: string;
}

export function sessionWhere(f: SessionFilter = {}): {
  where: string;
  params: (string | number)[];
} {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (clause: string, value: string | number | undefined) => {
    if (value === undefined) return;
    where.push(clause);
    params.push(value);
  };
  add('status = ?', f.status);
  add('trigger = ?', f.trigger);
  add('tier = ?', f.tier);
  add('started_at >= ?', f.from);
  add('started_at < ?', f.to);
  add('instance = ?', f.instance);
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}
