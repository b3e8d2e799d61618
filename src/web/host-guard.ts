/**
 * DNS rebinding: a page on a name its owner points at 127.0.0.1 is same-origin with itself, so
 * Origin checks pass and the browser talks to this dashboard under that name. The `Host` header
 * still carries the attacker's name, so it decides: without a credential the dashboard answers
 * only to loopback names; with one, to WATCHKEEPER_ALLOWED_HOSTS when that is set (behind a
 * proxy), and to loopback names always (health checks from the same machine).
 */
import type { MiddlewareHandler } from 'hono';

import type { WebConfig } from '../config/index.js';
import type { AppEnv } from './context.js';
import { apiError } from './errors.js';

/** `Host` split into its name (IPv6 keeps its brackets) and port, lower-cased. */
export function splitHost(host: string): { name: string; port: string | null } {
  const h = host.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(h);
  return m ? { name: m[1]!, port: m[2] ?? null } : { name: h, port: null };
}

/** Names a browser uses only for this machine itself (no DNS answer can produce them). */
export function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(name);
}

function allowedBy(list: readonly string[], host: string): boolean {
  const { name, port } = splitHost(host);
  return list.some((entry) => {
    const e = splitHost(entry);
    return e.name === name && (e.port === null || e.port === port);
  });
}

export function hostGuard(web: WebConfig): MiddlewareHandler<AppEnv> {
  const open = !web.authToken && !web.authUser;
  const allowed = web.allowedHosts;
  return async (c, next) => {
    const host = c.req.header('Host') ?? new URL(c.req.url).host;
    const { name } = splitHost(host);
    if (isLoopbackName(name)) return next();
    if (!open && (allowed.length === 0 || allowedBy(allowed, host))) return next();
    const shown = JSON.stringify(host.slice(0, 100));
    return apiError(
      c,
      421,
      'host_not_allowed',
      open
        ? `this dashboard has no credential configured, so it answers only to 127.0.0.1, localhost ` +
            `or [::1], not to Host ${shown} (a guard against DNS rebinding); open it by one of ` +
            `those names, or set WATCHKEEPER_AUTH_TOKEN`
        : `Host ${shown} is not in WATCHKEEPER_ALLOWED_HOSTS`,
    );
  };
}
