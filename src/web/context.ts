/**
 * The types every route module shares with the app: what a request carries (who is asking, the
 * page frame's flags) and what @hono/node-server binds (the incoming message, for the socket
 * address). Kept apart from app.ts so that route modules never import the app that mounts them.
 */
import type { IncomingMessage } from 'node:http';

import type { AuthInfo } from './auth.js';

/** Per-request flags every page's layout reads. */
export interface PageFlags {
  demo: boolean;
  signedIn: boolean;
  now: number;
  /** No model credential is configured (and not in demo mode): every run will fail to log in. */
  credentialMissing: boolean;
  /**
   * The shared database's address (password hidden) while it cannot be reached (the layout's
   * banner); null while it answers, and always for a SQLite file.
   */
  databaseUnreachable: string | null;
  /** The zone pages show times in (WATCHKEEPER_TZ, else the system's). */
  timeZone: string;
  /** Whether pages name instances (false on a lone sidecar, the instance `local`). */
  fleet: boolean;
}

export interface AppEnv {
  /** Set by @hono/node-server; absent when a test drives `app.request()` without an env. */
  Bindings: { incoming?: Pick<IncomingMessage, 'socket'> };
  Variables: {
    auth: AuthInfo;
    app: PageFlags;
  };
}
