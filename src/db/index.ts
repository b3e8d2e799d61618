/** @module db: better-sqlite3 stores, one per table family, and the migrator. */
import { createAlertRepeatStore } from './alert-repeats.js';
import { createClaudeOpsImportStore } from './claudeops-import.js';
import { createCooldownOverrideStore } from './cooldown-overrides.js';
import { createEventGroupStore } from './event-groups.js';
import { createConversationStore } from './conversations.js';
import { createCooldownStore } from './cooldowns.js';
import { createEventStore } from './events.js';
import { createExtractionStore } from './extractions.js';
import { createGatewayJobStore } from './gateway-jobs.js';
import { createMemoryStore } from './memories.js';
import { createMetricsStore } from './metrics.js';
import { createPortabilityStore } from './portability.js';
import { createTombstoneStore } from './tombstones.js';
import { createNotificationStore } from './notifications.js';
import { createRetentionStore } from './retention.js';
import { createSearchStore } from './search.js';
import { createServiceStore } from './services.js';
import { migrate } from './migrate.js';
import { type Db, openDatabase, type OpenOptions } from './open.js';
import { createScopeStore } from './scopes.js';
import { createSessionRecordStore } from './session-records.js';
import { createSessionStore } from './sessions.js';
import { createStatsStore } from './stats.js';
import { createSummaryStore } from './summaries.js';
import { createSurfacingStore } from './surfacing.js';
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
} from './claudeops-import.js';
export {
  type ClaudeOpsSource,
  parseClaudeOpsTime,
  readClaudeOpsDatabase,
} from './claudeops-source.js';
export {
  createRetentionStore,
  type PrunedSession,
  type PrunePlan,
  type RetentionStore,
} from './retention.js';
export { type AlertRepeatStore, createAlertRepeatStore } from './alert-repeats.js';
export {
  type CooldownOverrideKind,
  type CooldownOverrideRow,
  type CooldownOverrideStore,
  createCooldownOverrideStore,
  type NewCooldownOverride,
} from './cooldown-overrides.js';
export {
  createEventGroupStore,
  type EventGroupFilter,
  type EventGroupRow,
  type EventGroupStore,
} from './event-groups.js';
export { eventTextQuery } from './event-search.js';
export { anyOfWords } from './fts-query.js';
export { type SessionFilter } from './session-filter.js';
export {
  type CooldownBlockRow,
  type CooldownRow,
  type CooldownStore,
  createCooldownStore,
  type NewCooldownAction,
  type ReportedOutcome,
} from './cooldowns.js';
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
} from './conversations.js';
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
} from './extractions.js';
export {
  createGatewayJobStore,
  type DayCost,
  type GatewayJobRow,
  type GatewayJobStore,
  type JobFilter,
  type JobFinish,
  JOB_OUTCOMES,
  type JobOutcome,
} from './gateway-jobs.js';
export { createScopeStore, OPS_SCOPE, type ScopeRow, type ScopeStore } from './scopes.js';
export {
  createSummaryStore,
  type GenerationStats,
  SUMMARY_STATUSES,
  type SummaryHistoryRow,
  type SummaryRow,
  type SummaryStatus,
  type SummaryStore,
} from './summaries.js';
export {
  createEventStore,
  type EventFilter,
  type EventRow,
  type EventSource,
  type EventStore,
  type NewEvent,
} from './events.js';
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
} from './memories.js';
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
} from './portability.js';
export { createTombstoneStore, type Tombstone, type TombstoneStore } from './tombstones.js';
export {
  createSearchStore,
  type LexicalHit,
  type PendingMemory,
  type SearchFilter,
  type SearchStore,
  type StoredVector,
} from './search.js';
export {
  createServiceStore,
  type DescriptionSource,
  type ServiceInfo,
  type ServiceRow,
  type ServiceStore,
} from './services.js';
export {
  createSurfacingStore,
  type SessionMemoryRow,
  type Surfaced,
  type SurfacedVia,
  type SurfacingStore,
} from './surfacing.js';
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
} from './notifications.js';
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
} from './store-copy.js';
export {
  checkCopySource,
  checkPostgresUrl,
  connectCopyTarget,
  type CopySource,
  migrateCopyTarget,
  openCopySource,
} from './store-copy-open.js';
export { type TableCheck, verifyCopy } from './store-copy-verify.js';
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
} from './sessions.js';
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
} from './session-records.js';
export { createMetricsStore, type MetricsStore, type StoredMetrics } from './metrics.js';
export {
  type ActivityItem,
  createStatsStore,
  type LastRun,
  type OverviewCounts,
  type StatsStore,
} from './stats.js';

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
} from './conversation-json.js';
