/**
 * @module db: all SQL, one folder per table family (each folder's index.ts says what it
 * offers), the engines and the migrator.
 */
import { createAlertRepeatStore } from './sessions/alert-repeats.js';
import { createClaudeOpsImportStore } from './claudeops/claudeops-import.js';
import { createCooldownOverrideStore } from './cooldowns/cooldown-overrides.js';
import { createEventGroupStore } from './events/event-groups.js';
import { createConversationStore } from './conversations/conversations.js';
import { createCooldownStore } from './cooldowns/cooldowns.js';
import { createEventStore } from './events/events.js';
import { createExtractionStore } from './conversations/extractions.js';
import { createGatewayJobStore } from './conversations/gateway-jobs.js';
import { createMemoryStore } from './memories/memories.js';
import { createMetricsStore } from './overview/metrics.js';
import { createPortabilityStore } from './memories/portability.js';
import { createTombstoneStore } from './memories/tombstones.js';
import { createNotificationStore } from './notifications/notifications.js';
import { createRetentionStore } from './retention.js';
import { createSearchStore } from './memories/search.js';
import { createServiceStore } from './memories/services.js';
import { migrate } from './migrate.js';
import { type Db, openDatabase, type OpenOptions } from './open.js';
import { createScopeStore } from './memories/scopes.js';
import { createSessionRecordStore } from './sessions/session-records.js';
import { createSessionStore } from './sessions/sessions.js';
import { createStatsStore } from './overview/stats.js';
import { createSummaryStore } from './conversations/summaries.js';
import { createSurfacingStore } from './memories/surfacing.js';
import { openPostgres } from './postgres/open.js';
import { isPostgresUrl } from './postgres/url.js';

export {
  type ClaudeOpsImportOptions,
  type ClaudeOpsImportReport,
  type ClaudeOpsImportStore,
  createClaudeOpsImportStore,
  type ImportKind,
  type ImportRemark,
  type KindCounts,
} from './claudeops/claudeops-import.js';
export {
  type ClaudeOpsSource,
  parseClaudeOpsTime,
  readClaudeOpsDatabase,
} from './claudeops/claudeops-source.js';
export {
  createRetentionStore,
  type PrunedSession,
  type PrunePlan,
  type RetentionStore,
} from './retention.js';
export { type AlertRepeatStore, createAlertRepeatStore } from './sessions/alert-repeats.js';
export {
  type CooldownOverrideKind,
  type CooldownOverrideRow,
  type CooldownOverrideStore,
  createCooldownOverrideStore,
  type NewCooldownOverride,
} from './cooldowns/cooldown-overrides.js';
export {
  createEventGroupStore,
  type EventGroupFilter,
  type EventGroupRow,
  type EventGroupStore,
} from './events/event-groups.js';
export { eventTextQuery } from './events/event-search.js';
export { anyOfWords } from './fts-query.js';
export { type SessionFilter } from './sessions/session-filter.js';
export {
  type CooldownBlockRow,
  type CooldownRow,
  type CooldownStore,
  createCooldownStore,
  type NewCooldownAction,
  type ReportedOutcome,
} from './cooldowns/cooldowns.js';
export {
  type AppendOutcome,
  type ConversationListRow,
  type ConversationRow,
  type ConversationStore,
  createConversationStore,
  MESSAGE_ROLES,
  type MessageRole,
  type MessageRow,
  type MessageSpan,
  type NewMessage,
} from './conversations/conversations.js';
export {
  type ConversationMemoryRow,
  createExtractionStore,
  type ExtractedMemory,
  type ExtractedType,
  type ExtractionStore,
  type ExtractionWindowRow,
  type GateStats,
  MEMORY_TYPES,
  type NewExtractionWindow,
  type WindowStatus,
} from './conversations/extractions.js';
export {
  createGatewayJobStore,
  type DayCost,
  type GatewayJobRow,
  type GatewayJobStore,
  type JobFilter,
  type JobFinish,
  JOB_OUTCOMES,
  type JobOutcome,
} from './conversations/gateway-jobs.js';
export { createScopeStore, OPS_SCOPE, type ScopeRow, type ScopeStore } from './memories/scopes.js';
export {
  createSummaryStore,
  type GenerationStats,
  SUMMARY_STATUSES,
  type SummaryHistoryRow,
  type SummaryRow,
  type SummaryStatus,
  type SummaryStore,
} from './conversations/summaries.js';
export {
  createEventStore,
  type EventFilter,
  type EventRow,
  type EventSource,
  type EventStore,
  type NewEvent,
} from './events/events.js';
export {
  createMemoryStore,
  FLEET,
  type HistoryAction,
  type HistoryRow,
  HISTORY_ACTIONS,
  IMPORTANCES,
  type Importance,
  MEMORY_SOURCES,
  type MemoryChange,
  type MemoryFilter,
  type MemoryRow,
  type MemorySource,
  type MemoryStore,
  type NewMemory,
} from './memories/memories.js';
export {
  type CreatedMemory,
  createPortabilityStore,
  type EntityRelationRow,
  type ImportedHistory,
  type ImportedMemory,
  type ImportOrigin,
  type ImportRecordKind,
  type PortabilityStore,
  type PortableMemory,
} from './memories/portability.js';
export {
  createTombstoneStore,
  type Tombstone,
  type TombstoneStore,
} from './memories/tombstones.js';
export {
  createSearchStore,
  type LexicalHit,
  type PendingMemory,
  type SearchFilter,
  type SearchStore,
  type StoredVector,
} from './memories/search.js';
export {
  createServiceStore,
  type DescriptionSource,
  type ServiceInfo,
  type ServiceRow,
  type ServiceStore,
} from './memories/services.js';
export {
  createSurfacingStore,
  type SessionMemoryRow,
  type Surfaced,
  type SurfacedVia,
  type SurfacingStore,
} from './memories/surfacing.js';
export {
  createNotificationStore,
  DELIVERY_STATUSES,
  type DeliveryRow,
  type DeliveryScope,
  type DeliveryStatus,
  type NewNotification,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationLevel,
  type NotificationRow,
  type NotificationStore,
  type RecordOutcome,
} from './notifications/notifications.js';
export {
  type BackgroundLoop,
  type BackgroundLoopOptions,
  createDatabaseOutage,
  type DatabaseOutage,
  growingPause,
  type LoopTimers,
  realTimers,
  startBackgroundLoop,
  untilReachable,
} from './background-loop.js';
export { migrate, type MigrateResult, MIGRATIONS_DIR, readMigrations } from './migrate.js';
export {
  dataVersion,
  type Db,
  type Engine,
  engineOf,
  openDatabase,
  type OpenOptions,
  statementCache,
} from './open.js';
export { isPostgresUrl, redactUrl } from './postgres/url.js';
export {
  databaseLabel,
  databaseReachable,
  isUnreachableError,
  probeDatabase,
  PROBE_TIMEOUT_MS,
} from './reachability.js';
export {
  copyStore,
  prepareCopy,
  type StoreCopyOptions,
  type StoreCopyResult,
  type TableCopy,
} from './store-copy/store-copy.js';
export {
  checkCopySource,
  checkPostgresUrl,
  connectCopyTarget,
  type CopySource,
  migrateCopyTarget,
  openCopySource,
} from './store-copy/store-copy-open.js';
export { type TableCheck, verifyCopy } from './store-copy/store-copy-verify.js';
export {
  createSessionStore,
  type ExpiredLease,
  leaseExpiredError,
  SESSION_STATUSES,
  SESSION_TRIGGERS,
  type SessionFinish,
  type SessionRow,
  type SessionStart,
  type SessionStatus,
  type SessionStore,
  type SessionTrigger,
} from './sessions/sessions.js';
export {
  createSessionRecordStore,
  HEALTH_STATES,
  type Health,
  type ServiceCheck,
  type ServiceCheckRow,
  type SessionRecordStore,
  type SessionSummary,
  sumTokens,
  type SummarySource,
  type TokenCounts,
  tokensOf,
} from './sessions/session-records.js';
export { createMetricsStore, type MetricsStore, type StoredMetrics } from './overview/metrics.js';
export {
  type ActivityItem,
  createStatsStore,
  type LastRun,
  type OverviewCounts,
  type StatsStore,
} from './overview/stats.js';

export interface Stores {
  db: Db;
  /** This sidecar's name on what it writes (WATCHKEEPER_INSTANCE; `local` for a lone sidecar). */
  instance: string;
  sessions: ReturnType<typeof createSessionStore>;
  sessionRecords: ReturnType<typeof createSessionRecordStore>;
  events: ReturnType<typeof createEventStore>;
  memories: ReturnType<typeof createMemoryStore>;
  cooldowns: ReturnType<typeof createCooldownStore>;
  stats: ReturnType<typeof createStatsStore>;
  metrics: ReturnType<typeof createMetricsStore>;
  search: ReturnType<typeof createSearchStore>;
  services: ReturnType<typeof createServiceStore>;
  surfacing: ReturnType<typeof createSurfacingStore>;
  conversations: ReturnType<typeof createConversationStore>;
  summaries: ReturnType<typeof createSummaryStore>;
  extractions: ReturnType<typeof createExtractionStore>;
  scopes: ReturnType<typeof createScopeStore>;
  gatewayJobs: ReturnType<typeof createGatewayJobStore>;
  claudeOpsImport: ReturnType<typeof createClaudeOpsImportStore>;
  retention: ReturnType<typeof createRetentionStore>;
  portability: ReturnType<typeof createPortabilityStore>;
  tombstones: ReturnType<typeof createTombstoneStore>;
  notifications: ReturnType<typeof createNotificationStore>;
  cooldownOverrides: ReturnType<typeof createCooldownOverrideStore>;
  eventGroups: ReturnType<typeof createEventGroupStore>;
  alertRepeats: ReturnType<typeof createAlertRepeatStore>;
  close(): void;
}

/**
 * Opens the database (a SQLite file, or the fleet's PostgreSQL database when `target` is a
 * postgres:// address), applies pending migrations and builds every store.
 */
export function openStores(
  target: string,
  opts: OpenOptions & { migrationsDir?: string; instance?: string } = {},
): Stores {
  const instance = opts.instance ?? 'local';
  const db: Db = isPostgresUrl(target)
    ? openPostgres(target, { applicationName: `watchkeeper ${instance}` })
    : openDatabase(target, opts);
  try {
    migrate(db, opts.migrationsDir);
  } catch (err) {
    db.close();
    throw err;
  }
  return {
    db,
    instance,
    sessions: createSessionStore(db, instance),
    sessionRecords: createSessionRecordStore(db, instance),
    events: createEventStore(db, instance),
    memories: createMemoryStore(db),
    cooldowns: createCooldownStore(db, instance),
    stats: createStatsStore(db),
    metrics: createMetricsStore(db),
    search: createSearchStore(db),
    services: createServiceStore(db),
    surfacing: createSurfacingStore(db),
    conversations: createConversationStore(db, instance),
    summaries: createSummaryStore(db, instance),
    extractions: createExtractionStore(db),
    scopes: createScopeStore(db),
    gatewayJobs: createGatewayJobStore(db, instance),
    claudeOpsImport: createClaudeOpsImportStore(db, instance),
    retention: createRetentionStore(db, instance),
    portability: createPortabilityStore(db),
    tombstones: createTombstoneStore(db),
    notifications: createNotificationStore(db, instance),
    cooldownOverrides: createCooldownOverrideStore(db),
    eventGroups: createEventGroupStore(db),
    alertRepeats: createAlertRepeatStore(db),
    close: () => db.close(),
  };
}
export {
  cooldownBlockJson,
  cooldownJson,
  eventJson,
  historyJson,
  isoTime,
  memoryJson,
  searchResultJson,
  serviceJson,
  sessionJson,
  sessionMemoryJson,
} from './json.js';
export {
  conversationJson,
  conversationListJson,
  conversationMemoryJson,
  dayCostJson,
  extractionWindowJson,
  gatewayJobJson,
  gateStatsJson,
  generationJson,
  messageJson,
  scopeJson,
  summaryJson,
} from './conversations/conversation-json.js';
