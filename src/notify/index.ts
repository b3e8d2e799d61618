/** @module notify: notifications of what needs a human, to Apprise and built-in targets. */
import type { Clock } from '../clock.js';
import type { NotificationsConfig } from '../config/index.js';
import type { DatabaseOutage, NotificationStore } from '../db/index.js';
import type { Logger } from '../log.js';
import { findOnPath } from './apprise.js';
import { createNotifier, type Notifier } from './notifier.js';
import { buildTargets } from './targets.js';

export { findOnPath } from './apprise.js';
export { describe, NOTIFIED_ENDINGS, type NotifyTrigger, outgoing } from './message.js';
export {
  backoffMs,
  BACKOFF_BASE_MS,
  BACKOFF_MAX_MS,
  createNotifier,
  type Notifier,
  type NotifierDeps,
  type NotifySettings,
  recordTrigger,
  type TargetInfo,
  wanted,
} from './notifier.js';
export { MASK, redact, redactUrl, secretParts } from './redact.js';
export { buildTargets, type Endpoint, type Target, type TargetKind } from './targets.js';
export { type OutgoingMessage, postWebhook, webhookRequest } from './webhooks.js';

/**
 * The notifier of a serving process: Apprise found on the environment's PATH, the targets
 * parsed (AppError `config_invalid` for a URL that cannot be delivered).
 */
export function setUpNotifier(o: {
  config: NotificationsConfig;
  store: NotificationStore;
  clock: Clock;
  log: Logger;
  env: Record<string, string | undefined>;
  outage?: DatabaseOutage;
}): Notifier {
  const appriseBin = o.config.appriseUrls.length > 0 ? findOnPath('apprise', o.env.PATH) : null;
  const targets = buildTargets({
    notifyUrls: o.config.notifyUrls,
    appriseUrls: o.config.appriseUrls,
    appriseAvailable: appriseBin !== null,
  });
  return createNotifier({
    store: o.store,
    targets,
    settings: o.config,
    clock: o.clock,
    log: o.log,
    appriseBin,
    env: o.env,
    ...(o.outage ? { outage: o.outage } : {}),
  });
}
