/**
 * Configuration: one schema, parsed once from the environment, with errors that name the
 * variable and the bad value. Only this module interprets environment variables, and only
 * from the object its caller passes in. Every `WATCHKEEPER_X` may also be given as the Go
 * sidecar's `CLAUDEOPS_X`. Each area's settings live in a file of their own; this one composes
 * them into the one `Config`.
 */
import { AppError } from '../errors.js';
import { checkClaudeOpsNames } from './claudeops-names.js';
import { conversationsConfig } from './conversations.js';
import { effectiveSettings } from './effective-settings.js';
import { embeddingsConfig } from './embeddings.js';
import { fleetConfig } from './fleet.js';
import { gatewayConfig } from './gateway.js';
import { generalConfig } from './general.js';
import { graphConfig } from './graph.js';
import { cooldownLimits, guardAllowance } from './guard.js';
import { hasModelCredential } from './model-credential.js';
import { notificationsConfig } from './notifications.js';
import { readSettings } from './read-settings.js';
import { retentionMs } from './retention.js';
import { runbooksConfig } from './runbooks.js';
import { runnerConfig } from './runner.js';
import { PREFIX, SCHEMA, SECRET_KEYS } from './schema.js';
import type { Config } from './types.js';
import { checkSignInPair, webConfig } from './web.js';

export type { ConversationsConfig } from './conversations.js';
export type { EffectiveSetting } from './effective-settings.js';
export type { EmbeddingsConfig } from './embeddings.js';
export type { FleetConfig } from './fleet.js';
export type { GatewayBackendName, GatewayConfig } from './gateway.js';
export type { GraphConfig } from './graph.js';
export { type CooldownLimits, GUARD_INTERPRETERS, type GuardAllowance } from './guard.js';
export { intervalSchedule } from './interval.js';
export { hasModelCredential } from './model-credential.js';
export type { NotificationsConfig } from './notifications.js';
export { parseDuration } from './parse.js';
export { checkPromptFiles } from './prompt-files.js';
export type { RunbooksConfig } from './runbooks.js';
export type { RunnerConfig } from './runner.js';
export { DEFAULT_PROMPTS_DIR, type TierConfig } from './tiers.js';
export type { Config } from './types.js';
export { isLoopback, type WebConfig } from './web.js';

/** Parses the environment; throws `config_invalid` naming the variable and value at fault. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  checkClaudeOpsNames(env);
  const { input, sourceName, notices } = readSettings(env);
  const parsed = SCHEMA.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const name = sourceName[key] ?? PREFIX + key;
    throw new AppError(
      'config_invalid',
      // Secrets are never echoed, not even in an error.
      `${name}=${SECRET_KEYS.has(key) ? `(hidden, ${input[key]?.length ?? 0} characters)` : JSON.stringify(input[key])}: ${issue.message}`,
      {
        data: { variable: name },
      },
    );
  }
  const c = parsed.data;
  checkSignInPair(c);
  const general = generalConfig(c);
  const gateway = gatewayConfig(c, env);
  return {
    ...general,
    timeZone: c.TZ ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    // Claude Ops ran once at start-up, then every interval: so does a schedule it set.
    runner: runnerConfig(c, general.dataDir, sourceName.SCHEDULE === 'CLAUDEOPS_INTERVAL'),
    runbooks: runbooksConfig(c),
    cooldowns: cooldownLimits(c),
    guard: guardAllowance(c),
    web: webConfig(c),
    embeddings: embeddingsConfig(c),
    gateway,
    conversations: conversationsConfig(c),
    retentionMs: retentionMs(c),
    notifications: notificationsConfig(c),
    fleet: fleetConfig(c),
    graph: graphConfig(c, env),
    notices,
    sources: sourceName,
    settings: effectiveSettings(input, sourceName),
    modelCredentialConfigured: hasModelCredential(env),
  };
}
