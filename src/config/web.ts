/**
 * The dashboard and API: where they listen, who may sign in (a bearer token, a user and
 * password), which `Host` names and proxies they trust, and how large a webhook may be.
 */
import { isIP } from 'node:net';

import { z } from 'zod';

import { AppError } from '../errors.js';
import { bool, int, list } from './parse.js';

/** Addresses or CIDR ranges (`10.0.0.1`, `172.16.0.0/12`, `::1`), each checked. */
const addressList = list.superRefine((items, ctx) => {
  for (const item of items) {
    const [ip = '', bits, ...rest] = item.split('/');
    const family = isIP(ip);
    const max = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !bitsOk || rest.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `"${item}" is not an IP address or a CIDR range such as 10.0.0.0/8`,
      });
      return;
    }
  }
});
/** Host names as a browser sends them in `Host` (`dash.example.com`, optionally `:port`). */
const hostList = list.transform((items) => items.map((h) => h.toLowerCase()));

export const webShape = {
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65535).default(8080),
  AUTH_TOKEN: z.string().min(16, 'must be at least 16 characters (use a random token)').optional(),
  AUTH_USER: z.string().min(1).optional(),
  AUTH_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
  ALLOWED_HOSTS: hostList.default([]),
  TRUSTED_PROXIES: addressList.default([]),
  WEBHOOK_MAX_BYTES: int(256, 10 * 1024 * 1024).default(64 * 1024),
  SECURE_COOKIES: bool.default(false),
};

export interface WebConfig {
  host: string;
  port: number;
  /** Bearer token for scripts and sign-in; null when not configured. */
  authToken: string | null;
  /** A user and password for sign-in; null when not configured. */
  authUser: { user: string; password: string } | null;
  webhookMaxBytes: number;
  /**
   * With a credential: the `Host` names the dashboard answers to (empty: any). Without one it
   * answers to loopback names only, whatever this says.
   */
  allowedHosts: string[];
  /** Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client. */
  trustedProxies: string[];
  /** Mark cookies Secure (when served over HTTPS, e.g. behind a proxy). */
  secureCookies: boolean;
}

/** True for addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

type WebSettings = z.infer<z.ZodObject<typeof webShape>>;

/** A user without a password (or the other way round) stops start-up naming the missing one. */
export function checkSignInPair(c: WebSettings): void {
  if ((c.AUTH_USER === undefined) !== (c.AUTH_PASSWORD === undefined)) {
    const missing =
      c.AUTH_USER === undefined ? 'WATCHKEEPER_AUTH_USER' : 'WATCHKEEPER_AUTH_PASSWORD';
    throw new AppError(
      'config_invalid',
      `${missing} is missing: set both the user and the password, or neither`,
      {
        data: { variable: missing },
      },
    );
  }
}

export function webConfig(c: WebSettings): WebConfig {
  return {
    host: c.HOST,
    port: c.PORT,
    authToken: c.AUTH_TOKEN ?? null,
    authUser:
      c.AUTH_USER && c.AUTH_PASSWORD ? { user: c.AUTH_USER, password: c.AUTH_PASSWORD } : null,
    webhookMaxBytes: c.WEBHOOK_MAX_BYTES,
    allowedHosts: c.ALLOWED_HOSTS,
    trustedProxies: c.TRUSTED_PROXIES,
    secureCookies: c.SECURE_COOKIES,
  };
}
