/** The whole configuration: each area's section under the field names the rest of the code reads. */
import type { ConversationsConfig } from './conversations.js';
import type { EffectiveSetting } from './effective-settings.js';
import type { EmbeddingsConfig } from './embeddings.js';
import type { FleetConfig } from './fleet.js';
import type { GatewayConfig } from './gateway.js';
import type { GeneralConfig } from './general.js';
import type { GraphConfig } from './graph.js';
import type { CooldownLimits, GuardAllowance } from './guard.js';
import type { NotificationsConfig } from './notifications.js';
import type { RunbooksConfig } from './runbooks.js';
import type { RunnerConfig } from './runner.js';
import type { WebConfig } from './web.js';

export interface Config extends GeneralConfig {
  /** WATCHKEEPER_TZ, else the system's zone: the dashboard's times and the cron schedule. */
  timeZone: string;
  runner: RunnerConfig;
  /** The operator's repositories and the runbooks section's budget per tier. */
  runbooks: RunbooksConfig;
  cooldowns: CooldownLimits;
  guard: GuardAllowance;
  web: WebConfig;
  embeddings: EmbeddingsConfig;
  gateway: GatewayConfig;
  conversations: ConversationsConfig;
  /** Sessions, raw logs, events and memory history older than this are pruned; null: kept. */
  retentionMs: number | null;
  notifications: NotificationsConfig;
  fleet: FleetConfig;
  graph: GraphConfig;
  /**
   * What start-up should say about the settings: a Claude Ops setting read under a watchkeeper
   * meaning (CLAUDEOPS_INTERVAL as a schedule), or one given twice where one name wins.
   */
  notices: string[];
  /** The variable each setting given was read from (`WATCHKEEPER_X` or a `CLAUDEOPS_` name). */
  sources: Record<string, string>;
  /** Every setting in effect and where it came from (the Settings page). */
  settings: EffectiveSetting[];
  /**
   * True when the environment holds a credential the Claude CLI can use (ANTHROPIC_API_KEY,
   * ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN, or Bedrock/Vertex switched on).
   */
  modelCredentialConfigured: boolean;
}
