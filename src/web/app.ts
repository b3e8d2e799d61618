/**
 * The dashboard and the JSON API on one Hono app. Order matters: security headers, the `Host`
 * check, body limits (before anything reads a body), static files, sign-in, then authentication
 * and CSRF for everything else. `createApp(deps).request()` is what the route tests drive.
 */
import { join } from 'node:path';

import { Hono } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';

import { databaseLabel, databaseReachable } from '../db/index.js';
import { COOKIE_NAME, createAuth } from './auth.js';
import { bodyLimit } from './body-limit.js';
import type { AppEnv } from './context.js';
import type { WebDeps } from './deps.js';
import { apiError, onError, wantsJson } from './errors.js';
import { hostGuard } from './host-guard.js';
import { isHtmx } from './render.js';
import { revokedSessions } from './revoked-sessions.js';
import { chatCompletionRoutes } from './api/chat-completions.js';
import { openAiUnauthorized } from './chat-errors.js';
import { apiRoutes } from './routes/api.js';
import { conversationRoutes } from './routes/conversations.js';
import { cooldownOverrideRoutes } from './routes/cooldown-overrides.js';
import { cooldownRoutes } from './routes/cooldowns.js';
import { eventGroupRoutes } from './routes/event-groups.js';
import { runQueueRoutes } from './routes/run-queue.js';
import { graphRoutes } from './routes/graph.js';
import { eventRoutes } from './routes/events.js';
import { memoryRoutes } from './routes/memories.js';
import { memoryTransferRoutes } from './routes/memory-transfer.js';
import { notificationRoutes } from './routes/notifications.js';
import { runbookRoutes } from './routes/runbooks.js';
import { settingsRoutes } from './routes/settings.js';
import { observabilityRoutes } from './routes/observability.js';
import { overviewRoutes } from './routes/overview.js';
import { serviceRoutes } from './routes/services.js';
import { sessionRoutes } from './routes/sessions.js';
import { showsInstances } from './fleet-view.js';
import { isMutation, sameOriginMutations, securityHeaders } from './security.js';
import { setSessionCookie, signInRoutes } from './sign-in.js';
import { serveStatic } from './static.js';

export type { AppEnv } from './context.js';

// The endpoint proof is asked before any credential is sent (what it answers is no secret).
const PUBLIC_PATHS = new Set([
  '/login',
  '/api/v1/health',
  '/api/v1/openapi.json',
  '/api/v1/graph/endpoint-proof',
]);
/** The OpenAI-compatible routes: a Bearer token only (no cookie, so no CSRF to forge past). */
const OPENAI_PREFIX = '/v1/';
/** Signed-out sessions, kept beside the cookie key (web-secret) in the data folder. */
const REVOKED_FILE = 'web-signed-out';

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

export function createApp(deps: WebDeps): Hono<AppEnv> {
  const now = () => deps.clock.now();
  const revoked = revokedSessions(join(deps.config.dataDir, REVOKED_FILE), now, deps.log);
  const auth = createAuth(deps.config.web, deps.secret, now, (id) => revoked.has(id));
  const app = new Hono<AppEnv>();
  const secure = deps.config.web.secureCookies;
  const credentialMissing = !deps.config.modelCredentialConfigured && !deps.demo;
  // Asked once now: the change feed it reads starts listening before the first page.
  const reachable = deps.databaseReachable ?? (() => databaseReachable(deps.stores.db));
  reachable();
  const databaseAddress = databaseLabel(deps.stores.db) ?? 'the database';

  app.onError(onError(deps.log));
  app.use('*', securityHeaders);
  app.use('*', hostGuard(deps.config.web));
  app.use('*', bodyLimit(deps.config.web));
  app.get('/static/*', serveStatic);
  app.use('*', sameOriginMutations);
  app.use('*', async (c, next) => {
    c.set('app', {
      demo: deps.demo,
      signedIn: !auth.open,
      now: now(),
      credentialMissing,
      databaseUnreachable: reachable() ? null : databaseAddress,
      timeZone: deps.config.timeZone,
      fleet: showsInstances(deps),
    });
    return next();
  });

  app.route('/', signInRoutes(deps, auth));
  // /metrics and the Homepage stats: what they answer without a credential, and a plain 401.
  const observability = observabilityRoutes(deps);
  app.use('*', observability.beforeAuth);

  // --- authentication and CSRF ----------------------------------------------------------------
  app.use('*', async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const bearer = auth.bearerOk(c.req.header('Authorization'));
    if (c.req.path.startsWith(OPENAI_PREFIX) && bearer !== true) return openAiUnauthorized(c);
    if (bearer === false) return apiError(c, 401, 'unauthorized', 'invalid bearer token');
    if (bearer === true) {
      c.set('auth', { kind: 'bearer', csrf: null, session: null });
      return next();
    }
    let session = auth.verify(getCookie(c, COOKIE_NAME));
    if (!session && auth.open) {
      if (isMutation(c.req.method) && !forgeable(c.req.method, c.req.header('Content-Type'))) {
        // A script on this machine (no credential configured, loopback only): a JSON body or a
        // PUT/DELETE cannot be sent cross-site without a CORS preflight, which is never granted.
        c.set('auth', { kind: 'anonymous', csrf: null, session: null });
        return next();
      }
      // A browser: an anonymous session, so CSRF protection still applies.
      const issued = auth.issue('anonymous');
      setSessionCookie(c, issued, secure);
      session = {
        kind: 'anonymous',
        csrf: issued.csrf,
        session: { id: issued.id, expiresAt: issued.expiresAt },
      };
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
    // Revoked server-side too, so a copy of the cookie is refused after signing out.
    const session = auth.verify(getCookie(c, COOKIE_NAME))?.session;
    if (session) revoked.revoke(session.id, session.expiresAt);
    deleteCookie(c, COOKIE_NAME, { path: '/' });
    return c.redirect(auth.open ? '/' : '/login', 303);
  });

  app.route('/', overviewRoutes(deps));
  app.route('/', sessionRoutes(deps));
  app.route('/', runQueueRoutes(deps));
  app.route('/', eventGroupRoutes(deps));
  app.route('/', cooldownOverrideRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', memoryTransferRoutes(deps));
  app.route('/', memoryRoutes(deps));
  app.route('/', serviceRoutes(deps));
  app.route('/', cooldownRoutes(deps));
  app.route('/', conversationRoutes(deps));
  app.route('/', graphRoutes(deps));
  app.route('/', notificationRoutes(deps));
  app.route('/', runbookRoutes(deps));
  app.route('/', settingsRoutes(deps));
  app.route('/api/v1', apiRoutes(deps));
  app.route('/v1', chatCompletionRoutes(deps));
  app.route('/', observability.routes);
  app.notFound((c) => apiError(c, 404, 'not_found', `no route for ${c.req.method} ${c.req.path}`));
  return app;
}
