/**
 * Eta templates from views/, escaped by default (`<%= %>`; `<%~ %>` only for HTML we built).
 * Pages render inside views/layout.eta; partials render alone for htmx requests, and inside the
 * layout when the address was opened directly (a link, a reload): never an unstyled fragment.
 */
import { randomBytes } from 'node:crypto';
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

/**
 * A rendered fragment kept to answer many requests (a cached table), as UTF-8 bytes encoded
 * once. A page takes it in place of a string: encoding a 100 KB table again for every response
 * (a few characters outside Latin-1 make it a two-byte string, slow to encode) was most of the
 * Memories page's time (measured: 1.4 ms of each response).
 */
export class Fragment {
  readonly bytes: Buffer<ArrayBuffer>;
  constructor(html: string) {
    this.bytes = Buffer.from(html);
  }
}

/** Where a page's fragments go: control characters no template writes, and a per-process nonce. */
const SLOT = `\u0001${randomBytes(8).toString('hex')}:`;

/** An HTML response of these bytes. */
export function htmlBytes(c: Context, bytes: Buffer<ArrayBuffer>, status = 200) {
  return c.body(bytes, status as 200, { 'Content-Type': 'text/html; charset=UTF-8' });
}

export function page(
  c: Context,
  name: string,
  frame: PageFrame,
  data: Record<string, unknown>,
  status = 200,
) {
  // Fragments go in as their bytes; the rest is encoded once (as a string, a response is
  // measured and then encoded again).
  const fragments: Buffer<ArrayBuffer>[] = [];
  const values = Object.fromEntries(
    Object.entries(data).map(([k, v]) => {
      if (!(v instanceof Fragment)) return [k, v];
      fragments.push(v.bytes);
      return [k, `${SLOT}${fragments.length - 1}\u0001`];
    }),
  );
  const html = renderView(c, name, { ...frame, ...values });
  if (fragments.length === 0) return htmlBytes(c, Buffer.from(html), status);
  const parts = html.split(new RegExp(`${SLOT}(\\d+)\u0001`));
  const bytes = parts.map((part, i) =>
    i % 2 === 0 ? Buffer.from(part) : fragments[Number(part)]!,
  );
  // A new buffer of its own (not a slice of a shared pool), as the type says.
  return htmlBytes(c, Buffer.concat(bytes) as Buffer<ArrayBuffer>, status);
}

export function partial(c: Context, name: string, data: Record<string, unknown>, status = 200) {
  const html = renderView(c, name, data);
  if (isHtmx(c)) return c.html(html, status as 200);
  return page(c, 'pages/fragment', frameOf(c.req.path), { fragment: html }, status);
}
