/**
 * Who made a change, as recorded beside it (a cooldown reset, an acknowledgement, a cancelled
 * run): the signed-in user, the API token, or the dashboard without a named user.
 */
import type { Context } from 'hono';

import type { AppEnv } from './context.js';

export function actorOf(c: Context<AppEnv>): string {
  const auth = c.get('auth');
  switch (auth.kind) {
    case 'bearer':
      return 'API token';
    case 'session':
      return auth.user ? `${auth.user} (dashboard)` : 'dashboard (token sign-in)';
    case 'anonymous':
      return 'dashboard (no sign-in, loopback)';
  }
}
