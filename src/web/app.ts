/**
 * The dashboard and the JSON API on one Hono app. Order matters: security headers, static files,
 * sign-in, then authentication and CSRF for everything else. `createApp(deps).request()` is
 * what the route tests drive.
 */
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

import { type AuthInfo, COOKIE_NAME, createAuth, type SessionCookie } from './auth.js';
import type { WebDeps } from './deps.js';
import { apiError, onError, wantsJson } from './errors.js';
import { isHtmx, renderView } from './render.js';
import { apiRoutes } from './routes/api.js';
import { cooldownRoutes } from './routes/cooldowns.js';
import { eventRoutes } from './routes/events.js';
import { memoryRoutes } from './routes/memories.js';
import { overviewRoutes } from './routes/overview.js';
import { sessionRoutes } from './routes/sessions.js';
import { isMutation, sameOriginMutations, securityHeaders } from './security.js';
import { serveStatic } from './static.js';

export interface AppEnv {
  Variables: {
    auth: AuthInfo;
    app: { demo: boolean; signedIn: boolean; now: number };
  };
}

const PUBLIC_PATHS = new Set(['/login', '/api/v1/health', '/api/v1/openapi.json']);
const MAX_FAILED_LOGINS = 10;

/** True for requests a cross-site HTML form can send (POST with a form or text body). */
function forgeable(method: string, contentType: string | undefined): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return (
    type === '' ||
    type === 'application/x-www-form-urlencoded' ||
    type === 'multipart/form-data' ||
    type === 'text/plain'
  );
}

/** A local path to return to after sign-in; anything else becomes `/`. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\')
    ? next
    : '/';
}

export function createApp(deps: WebDeps): Hono<AppEnv> {
  const auth = createAuth(deps.config.web, deps.secret, () => deps.clock.now());
  const app = new Hono<AppEnv>();
  const failedLogins = new Map<string, { count: number; since: number }>();

  const setSession = (c: Parameters<typeof setCookie>[0], s: SessionCookie) =>
    setCookie(c, COOKIE_NAME, s.value, {
      httpOnly: true,
      sameSite: 'Strict',
      secure: deps.config.web.secureCookies,
      path: '/',
      maxAge: s.maxAgeSeconds,
    });

  app.onError(onError(deps.log));
  app.use('*', securityHeaders);
  app.get('/static/*', serveStatic);
  app.use('*', sameOriginMutations);
  app.use('*', async (c, next) => {
    c.set('app', { demo: deps.demo, signedIn: !auth.open, now: deps.clock.now() });
    return next();
  });

  // --- sign-in -------------------------------------------------------------------------------
  const loginPage = (c: Parameters<typeof renderView>[0], error: string | null, status = 200) =>
    c.html(
      renderView(c, 'login', {
        error,
        next: safeNext(c.req.query('next')),
        canUseToken: auth.canUseToken,
        canUsePassword: auth.canUsePassword,
      }),
      status as 200,
    );
  app.get('/login', (c) => (auth.open ? c.redirect('/', 303) : loginPage(c, null)));
  app.post('/login', async (c) => {
    if (auth.open) return c.redirect('/', 303);
    const key = c.req.header('X-Forwarded-For') ?? 'local';
    const now = deps.clock.now();
    const record = failedLogins.get(key);
    if (record && now - record.since < 60_000 && record.count >= MAX_FAILED_LOGINS) {
      return loginPage(c, 'Too many failed attempts; wait a minute.', 429);
    }
    const form = await c.req.parseBody();
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const ok = auth.credentialsOk({
      token: str(form.token),
      user: str(form.user),
      password: str(form.password),
    });
    if (!ok) {
      failedLogins.set(
        key,
        record && now - record.since < 60_000
          ? { ...record, count: record.count + 1 }
          : { count: 1, since: now },
      );
      deps.log.warn('failed sign-in');
      return loginPage(c, 'Wrong credentials.', 401);
    }
    failedLogins.delete(key);
    setSession(c, auth.issue('session'));
    return c.redirect(safeNext(str(form.next)), 303);
  });

  // --- authentication and CSRF ----------------------------------------------------------------
  app.use('*', async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const bearer = auth.bearerOk(c.req.header('Authorization'));
    if (bearer === false) return apiError(c, 401, 'unauthorized', 'invalid bearer token');
    if (bearer === true) {
      c.set('auth', { kind: 'bearer', csrf: null });
      return next();
    }
    let session = auth.verify(getCookie(c, COOKIE_NAME));
    if (!session && auth.open) {
      if (isMutation(c.req.method) && !forgeable(c.req.method, c.req.header('Content-Type'))) {
        // A script on this machine (no credential configured, loopback only): a JSON body or a
        // PUT/DELETE cannot be sent cross-site without a CORS preflight, which is never granted.
        c.set('auth', { kind: 'anonymous', csrf: null });
        return next();
      }
      // A browser: an anonymous session, so CSRF protection still applies.
      const issued = auth.issue('anonymous');
      setSession(c, issued);
      session = { kind: 'anonymous', csrf: issued.csrf };
      if (isMutation(c.req.method))
        return apiError(c, 403, 'csrf', 'missing or invalid CSRF token');
    }
    if (!session) {
      if (wantsJson(c) || isMutation(c.req.method)) {
        return apiError(c, 401, 'unauthorized', 'sign in, or send Authorization: Bearer TOKEN');
      }
      const target = `/login?next=${encodeURIComponent(c.req.path)}`;
      if (isHtmx(c)) {
        c.header('HX-Redirect', target);
        return c.body(null, 401);
      }
      return c.redirect(target, 303);
    }
    c.set('auth', session);
    if (isMutation(c.req.method)) {
      let token = c.req.header('X-CSRF-Token');
      if (
        !token &&
        (c.req.header('Content-Type') ?? '').startsWith('application/x-www-form-urlencoded')
      ) {
        const form = await c.req.parseBody();
        token = typeof form._csrf === 'string' ? form._csrf : undefined;
      }
      if (token !== session.csrf) return apiError(c, 403, 'csrf', 'missing or invalid CSRF token');
    }
    return next();
  });

  app.post('/logout', (c) => {
    deleteCookie(c, COOKIE_NAME, { path: '/' });
    return c.redirect(auth.open ? '/' : '/login', 303);
  });

  app.route('/', overviewRoutes(deps));
  app.route('/', sessionRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', memoryRoutes(deps));
  app.route('/', cooldownRoutes(deps));
  app.route('/api/v1', apiRoutes(deps));
  app.notFound((c) => apiError(c, 404, 'not_found', `no route for ${c.req.method} ${c.req.path}`));
  return app;
}
