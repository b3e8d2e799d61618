/**
 * Who is asking. Scripts send `Authorization: Bearer TOKEN`; browsers sign in once and carry a
 * signed session cookie, and every cookie-authenticated mutation must also carry the session's
 * CSRF token (header `X-CSRF-Token`, or the `_csrf` form field for plain forms). With no
 * credential configured (loopback only), each browser gets an anonymous session so that CSRF
 * protection still applies.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import type { WebConfig } from '../config/index.js';

export type AuthKind = 'bearer' | 'session' | 'anonymous';

export interface AuthInfo {
  kind: AuthKind;
  /** The CSRF token of the session (null for bearer requests, which need none). */
  csrf: string | null;
  /** The signed cookie's id and expiry (null without a cookie), for signing out. */
  session: { id: string; expiresAt: number } | null;
  /** The user name a password sign-in gave (recorded with what the operator changes). */
  user?: string | null;
}

export interface SessionCookie {
  value: string;
  id: string;
  expiresAt: number;
  csrf: string;
  maxAgeSeconds: number;
}

export const COOKIE_NAME = 'wk_session';
const SESSION_TTL_MS = 12 * 3_600_000;

const b64 = (b: Buffer) => b.toString('base64url');

/** Compares secrets in constant time (over their digests, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

export function createAuth(
  web: WebConfig,
  secret: Buffer,
  now: () => number,
  /** True for a session signed out before it expired. */
  isRevoked: (id: string) => boolean = () => false,
) {
  // Changing a credential changes the key, which signs every earlier session out.
  const key = createHmac('sha256', secret)
    .update(
      `${web.authToken ?? ''}\u0000${web.authUser?.user ?? ''}\u0000${web.authUser?.password ?? ''}`,
    )
    .digest();
  const sign = (data: string) => b64(createHmac('sha256', key).update(data).digest());
  const csrfFor = (nonce: string) => sign(`csrf:${nonce}`);
  const open = !web.authToken && !web.authUser;

  return {
    /** True when no credential is configured (the dashboard is then loopback-only). */
    open,
    canUseToken: web.authToken !== null,
    canUsePassword: web.authUser !== null,

    /** A fresh signed session; `kind` tells how it was obtained. */
    issue(kind: 'session' | 'anonymous', user: string | null = null): SessionCookie {
      const nonce = b64(randomBytes(18));
      const expiresAt = now() + SESSION_TTL_MS;
      const payload = b64(
        Buffer.from(
          JSON.stringify({ n: nonce, e: expiresAt, k: kind, ...(user ? { u: user } : {}) }),
        ),
      );
      return {
        value: `${payload}.${sign(payload)}`,
        id: nonce,
        expiresAt,
        csrf: csrfFor(nonce),
        maxAgeSeconds: SESSION_TTL_MS / 1000,
      };
    },

    /** The session a cookie value proves, or null (bad signature, expired, signed out, or wrong mode). */
    verify(cookie: string | undefined): AuthInfo | null {
      if (!cookie) return null;
      const dot = cookie.indexOf('.');
      if (dot <= 0) return null;
      const payload = cookie.slice(0, dot);
      if (!safeEqual(sign(payload), cookie.slice(dot + 1))) return null;
      try {
        const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
          n: string;
          e: number;
          k: string;
          u?: unknown;
        };
        if (typeof p.n !== 'string' || typeof p.e !== 'number' || p.e < now()) return null;
        // An anonymous session is worth nothing once a credential is configured.
        if (p.k === 'anonymous' && !open) return null;
        if (isRevoked(p.n)) return null;
        return {
          kind: p.k === 'anonymous' ? 'anonymous' : 'session',
          csrf: csrfFor(p.n),
          session: { id: p.n, expiresAt: p.e },
          user: typeof p.u === 'string' ? p.u : null,
        };
      } catch {
        return null;
      }
    },

    /** True when the Authorization header carries the configured token. */
    bearerOk(header: string | undefined): boolean | null {
      if (!header) return null;
      const m = /^Bearer\s+(.+)$/i.exec(header.trim());
      if (!m || !web.authToken) return false;
      return safeEqual(m[1]!, web.authToken);
    },

    /** Checks a sign-in form; the token, or the user and password. */
    credentialsOk(form: { token?: string; user?: string; password?: string }): boolean {
      if (web.authToken && form.token && safeEqual(form.token, web.authToken)) return true;
      if (web.authUser && form.user !== undefined && form.password !== undefined) {
        // Both compared, always, so timing does not tell which was wrong.
        const userOk = safeEqual(form.user, web.authUser.user);
        const passwordOk = safeEqual(form.password, web.authUser.password);
        return userOk && passwordOk;
      }
      return false;
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;
