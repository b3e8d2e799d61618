/**
 * The sign-in page and form. Failed attempts are throttled per client address (see
 * client-address.ts and login-throttle.ts); a successful one sets the session cookie and goes
 * back to the page that asked, but only ever to a plain path on this site.
 */
import { type Context, Hono } from 'hono';
import { setCookie } from 'hono/cookie';

import type { Auth, SessionCookie } from './auth.js';
import { COOKIE_NAME } from './auth.js';
import { addressBucket, clientAddress, trustedProxies } from './client-address.js';
import type { AppEnv } from './context.js';
import type { WebDeps } from './deps.js';
import { createLoginThrottle, type LoginThrottle } from './login-throttle.js';
import { renderView } from './render.js';

const SAFE_PATH = /^\/(?![/\\])[\x21-\x7e]*$/;

/**
 * A path on this site to return to after sign-in; anything else becomes `/`. Printable ASCII
 * only (a tab or newline is dropped by URL parsers, which turns `/<TAB>/evil` into `//evil`),
 * never `//` or a backslash (both name another host to a browser).
 */
export function safeNext(next: string | undefined): string {
  if (!next || !SAFE_PATH.test(next) || next.includes('\\')) return '/';
  const base = 'http://watchkeeper.invalid';
  try {
    return new URL(next, base).origin === base ? next : '/';
  } catch {
    return '/';
  }
}

export function setSessionCookie(c: Context, s: SessionCookie, secure: boolean): void {
  setCookie(c, COOKIE_NAME, s.value, {
    httpOnly: true,
    sameSite: 'Strict',
    secure,
    path: '/',
    maxAge: s.maxAgeSeconds,
  });
}

/** GET and POST /login; mounted before authentication. */
export function signInRoutes(
  deps: WebDeps,
  auth: Auth,
  throttle: LoginThrottle = createLoginThrottle(),
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const isTrusted = trustedProxies(deps.config.web.trustedProxies);

  // On a failed POST the page to return to is in the form, not the query: keep it for the retry.
  const loginPage = (
    c: Context<AppEnv>,
    error: string | null,
    status = 200,
    next = c.req.query('next'),
  ) =>
    c.html(
      renderView(c, 'login', {
        error,
        next: safeNext(next),
        canUseToken: auth.canUseToken,
        canUsePassword: auth.canUsePassword,
      }),
      status as 200,
    );

  app.get('/login', (c) => (auth.open ? c.redirect('/', 303) : loginPage(c, null)));

  app.post('/login', async (c) => {
    if (auth.open) return c.redirect('/', 303);
    const client = addressBucket(clientAddress(c, isTrusted));
    const now = deps.clock.now();
    const form = await c.req.parseBody();
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    if (throttle.blocked(client, now)) {
      return loginPage(c, 'Too many failed attempts; wait a minute.', 429, str(form.next));
    }
    const ok = auth.credentialsOk({
      token: str(form.token),
      user: str(form.user),
      password: str(form.password),
    });
    if (!ok) {
      throttle.failed(client, now);
      deps.log.warn('failed sign-in', { client });
      return loginPage(c, 'Wrong credentials.', 401, str(form.next));
    }
    throttle.succeeded(client);
    // Signed in with the password: the user name is who changes what (cooldowns, acks).
    const user = str(form.token) ? null : (str(form.user) ?? null);
    setSessionCookie(c, auth.issue('session', user), deps.config.web.secureCookies);
    return c.redirect(safeNext(str(form.next)), 303);
  });

  return app;
}
