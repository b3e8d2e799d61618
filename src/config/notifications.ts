/**
 * Where notifications go (Apprise and the built-in targets), which escalations notify, and how
 * deliveries are deduplicated, rate-limited and retried.
 */
import { z } from 'zod';

import { duration, int, list } from './parse.js';

/** Apprise URLs (`ntfy://topic`, `slack://...`), comma-separated; secret, so never echoed. */
const appriseUrls = list.superRefine((items, ctx) => {
  items.forEach((item, i) => {
    if (!/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(item)) {
      ctx.addIssue({
        code: 'custom',
        message: `URL ${i + 1} of ${items.length} is not an Apprise URL such as ntfy://host/topic`,
      });
    }
  });
});

export const notificationsShape = {
  APPRISE_URLS: appriseUrls.default([]),
  NOTIFY_URLS: appriseUrls.default([]),
  NOTIFY_ESCALATION_TIER: z.enum(['2', '3', 'off']).default('3'),
  NOTIFY_DEDUP_WINDOW: duration(0).default(30 * 60_000),
  NOTIFY_RATE_LIMIT: int(0, 100_000).default(20),
  NOTIFY_RETRIES: int(0, 50).default(6),
  NOTIFY_TIMEOUT: duration(1000).default(15_000),
};

/** Where notifications go; delivered by the notifications feature. */
export interface NotificationsConfig {
  /** Apprise URLs (WATCHKEEPER_APPRISE_URLS, the Go sidecar's CLAUDEOPS_APPRISE_URLS). Secret. */
  appriseUrls: string[];
  /** Targets delivered built in (WATCHKEEPER_NOTIFY_URLS), Apprise-style schemes. Secret. */
  notifyUrls: string[];
  /** Escalations to this tier or above notify; null: none do. */
  escalationTier: 2 | 3 | null;
  /** The same kind, service and message inside this window is one notification (0: no dedup). */
  dedupWindowMs: number;
  /** Notifications per target per hour; over it they are held back and counted (0: no limit). */
  rateLimitPerHour: number;
  /** Further attempts after a failed delivery, with doubling backoff. */
  retries: number;
  timeoutMs: number;
}

export function notificationsConfig(
  c: z.infer<z.ZodObject<typeof notificationsShape>>,
): NotificationsConfig {
  return {
    appriseUrls: c.APPRISE_URLS,
    notifyUrls: c.NOTIFY_URLS,
    escalationTier:
      c.NOTIFY_ESCALATION_TIER === 'off' ? null : (Number(c.NOTIFY_ESCALATION_TIER) as 2 | 3),
    dedupWindowMs: c.NOTIFY_DEDUP_WINDOW,
    rateLimitPerHour: c.NOTIFY_RATE_LIMIT,
    retries: c.NOTIFY_RETRIES,
    timeoutMs: c.NOTIFY_TIMEOUT,
  };
}
