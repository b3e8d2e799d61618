/**
 * Eta templates from views/, escaped by default (`<%= %>`; `<%~ %>` only for HTML we built).
 * Pages render inside views/layout.eta; partials render alone for htmx requests, and inside the
 * layout when the address was opened directly (a link, a reload): never an unstyled fragment.
 */
import { fileURLToPath } from 'node:url';

import { Eta } from 'eta';
import type { Context } from 'hono';

import type { AuthInfo } from './auth.js';
import type { PageFlags } from './context.js';
import { viewHelpersIn } from './view-helpers.js';

export const VIEWS_DIR = fileURLToPath(new URL('../../views/', import.meta.url));

const eta = new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true, autoTrim: false });

const NAV = {
  overview: 'Overview',
  sessions: 'Sessions',
  events: 'Events',
  memories: 'Memories',
  services: 'Services',
  cooldowns: 'Cooldowns',
  conversations: 'Conversations',
  gateway: 'Model gateway',
  graph: 'Memory graph',
  notifications: 'Notifications',
  runbooks: 'Runbooks',
  settings: 'Settings',
} as const;

export interface PageFrame {
  title: string;
  nav: keyof typeof NAV | 'none';
}

/** The navigation entry and title of a fragment's address (its first path segment). */
function frameOf(path: string): PageFrame {
  const first = path.split('/')[1] ?? '';
  return first in NAV
    ? { title: NAV[first as keyof typeof NAV], nav: first as keyof typeof NAV }
    : { title: 'watchkeeper', nav: 'none' };
}

/** True for requests made by htmx (they get partials, not whole pages). */
export function isHtmx(c: Context): boolean {
  return c.req.header('HX-Request') === 'true';
}

function common(c: Context) {
  const auth = c.get('auth' as never) as AuthInfo | undefined;
  const app = c.get('app' as never) as PageFlags | undefined;
  return {
    h: viewHelpersIn(app?.timeZone ?? 'UTC'),
    csrf: auth?.csrf ?? '',
    demo: app?.demo ?? false,
    credentialMissing: app?.credentialMissing ?? false,
    databaseUnreachable: app?.databaseUnreachable ?? null,
    signedIn: app?.signedIn ?? false,
    now: app?.now ?? Date.now(),
    fleet: app?.fleet ?? true,
  };
}

/** Renders a template to a string, with the helpers, the CSRF token and the demo flag. */
export function renderView(c: Context, name: string, data: Record<string, unknown>): string {
  return eta.render(name, { ...common(c), ...data });
}

export function page(
  c: Context,
  name: string,
  frame: PageFrame,
  data: Record<string, unknown>,
  status = 200,
) {
  return c.html(renderView(c, name, { ...frame, ...data }), status as 200);
}

export function partial(c: Context, name: string, data: Record<string, unknown>, status = 200) {
  const html = renderView(c, name, data);
  if (isHtmx(c)) return c.html(html, status as 200);
  return page(c, 'pages/fragment', frameOf(c.req.path), { fragment: html }, status);
}
