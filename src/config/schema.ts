/**
 * The one schema: every area's settings in one object, in the order their errors are reported
 * (the first bad setting wins) and their names are suggested for a typo.
 */
import { z } from 'zod';

import { conversationsShape } from './conversations.js';
import { embeddingsShape } from './embeddings.js';
import { fleetShape } from './fleet.js';
import { gatewayShape } from './gateway.js';
import { generalShape } from './general.js';
import { graphShape } from './graph.js';
import { guardShape } from './guard.js';
import { notificationsShape } from './notifications.js';
import { retentionShape } from './retention.js';
import { runbooksShape } from './runbooks.js';
import { runnerShape } from './runner.js';
import { webShape } from './web.js';

export const SCHEMA = z.object({
  ...generalShape,
  ...runnerShape,
  ...runbooksShape,
  ...guardShape,
  ...webShape,
  ...retentionShape,
  ...notificationsShape,
  ...embeddingsShape,
  ...gatewayShape,
  ...conversationsShape,
  ...fleetShape,
  ...graphShape,
});

export type SettingKey = keyof typeof SCHEMA.shape;

/** Settings whose values are never echoed, not even in an error. */
export const SECRET_KEYS = new Set<string>([
  'AUTH_TOKEN',
  'AUTH_PASSWORD',
  'EMBEDDINGS_KEY',
  'GATEWAY_KEY',
  'APPRISE_URLS',
  'NOTIFY_URLS',
  'DATABASE_URL',
]);

export const PREFIX = 'WATCHKEEPER_';
export const ALIAS_PREFIX = 'CLAUDEOPS_';
