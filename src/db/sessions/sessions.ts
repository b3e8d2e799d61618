/** The sessions table: one row per CLI run (or imported transcript). */
import type { Db } from '../engine.js';
import { leaseExpiredError, sessionLifecycle } from './session-lifecycle.js';
import { sessionChainReads } from './session-chains.js';
import { sessionReads } from './session-reads.js';

export { leaseExpiredError };
export {
  type ExpiredLease,
  type RunningSession,
  SESSION_STATUSES,
  SESSION_TRIGGERS,
  type SessionFinish,
  type SessionRow,
  type SessionStart,
  type SessionStatus,
  type SessionTrigger,
} from './session-types.js';

/** `instance`: this sidecar's name, written on the sessions it starts and used to find its own. */
export function createSessionStore(db: Db, instance = 'local') {
  return { ...sessionLifecycle(db, instance), ...sessionReads(db), ...sessionChainReads(db) };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
