/**
 * What the Notifications page and /api/v1/notifications show: the targets (redacted), the
 * settings, delivery totals and the latest notifications with each target's delivery. A target
 * key is already redacted; an error was redacted before it was stored, and is masked again here
 * with the credentials of every configured URL (a row stored by an older version, a server that
 * echoed another target's credentials).
 */
import type { DeliveryRow, NotificationRow } from '../db/index.js';
import { configSecrets, redact } from '../secrets.js';
import type { WebDeps } from './deps.js';

export const NOTIFICATIONS_PAGE_SIZE = 50;

/** Why a test notification cannot be sent, said the same by the page, its form and the API. */
export const NO_TARGET_MESSAGE =
  'no notification target is configured: set WATCHKEEPER_NOTIFY_URLS or WATCHKEEPER_APPRISE_URLS';

export interface NotificationView {
  notification: NotificationRow;
  deliveries: DeliveryRow[];
}

/** The page's reads are awaited: the count and the totals side by side, then the page. */
export async function notificationOverview(deps: WebDeps, page: number) {
  const store = deps.stores.notifications;
  const [total, counts] = await Promise.all([store.total(), store.statusCounts()]);
  const pages = Math.max(1, Math.ceil(total / NOTIFICATIONS_PAGE_SIZE));
  const current = Math.min(Math.max(1, page), pages);
  const secrets = configSecrets(deps.config);
  const shown = (text: string) => (secrets.length > 0 ? redact(text, secrets) : text);
  const items = await store.list(NOTIFICATIONS_PAGE_SIZE, (current - 1) * NOTIFICATIONS_PAGE_SIZE);
  return {
    now: deps.clock.now(),
    wired: deps.notifications !== undefined,
    targets: deps.notifications?.targets() ?? [],
    noTargetMessage: NO_TARGET_MESSAGE,
    settings: deps.notifications?.settings ?? null,
    counts,
    total,
    page: current,
    pages,
    items: items.map(({ notification: n, deliveries }) => ({
      notification: { ...n, title: shown(n.title), body: shown(n.body) },
      deliveries: deliveries.map((d) => ({
        ...d,
        lastError: d.lastError === null ? null : shown(d.lastError),
      })),
    })),
  };
}

/** A page number from the query string: 1 when absent or not a positive integer. */
export function pageParam(text: string | undefined): number {
  return text && /^[1-9][0-9]{0,6}$/.test(text) ? Number(text) : 1;
}
