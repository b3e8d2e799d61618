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
import { LONE_INSTANCE } from './memories/memory-types.js';
import { createSessionRecordStore } from './sessions/session-records.js';
import { createSessionStore } from './sessions/sessions.js';
import { createStatsStore } from './overview/stats.js';
import { createSummaryStore } from './conversations/summaries.js';
import { createSurfacingStore } from './memories/surfacing.js';
import { PostgresDb } from './postgres/database.js';
import { openPostgres } from './postgres/open.js';
import { detectPgvector, type PgvectorUse } from './postgres/pgvector.js';
import { isPostgresUrl } from './postgres/url.js';

export * from './claudeops/index.js';
export * from './conversations/index.js';
export * from './cooldowns/index.js';
export * from './events/index.js';
export * from './memories/index.js';
export * from './notifications/index.js';
export * from './overview/index.js';
export * from './sessions/index.js';
export * from './store-copy/index.js';
// Two families name a summary status; the store's callers mean a conversation summary's.
export type { SummaryStatus } from './conversations/index.js';
export {
  createRetentionStore,
  type PrunedSession,
  type PrunePlan,
  type RetentionStore,
} from './retention.js';
export { anyOfWords } from './fts-query.js';
export { commonOf } from './memories/common-words.js';
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
  warmTextSearch,
} from './open.js';
export { allAwaited, getAwaited, retryWhileMoved, runAwaited } from './engine.js';
export { isPostgresUrl, redactUrl } from './postgres/url.js';
export {
  databaseLabel,
  databaseReachable,
  isUnreachableError,
  probeDatabase,
  PROBE_TIMEOUT_MS,
  saysUnreachable,
} from './reachability.js';

export interface Stores {
  db: Db;
  /** What opening the store found wrong and went on without (serve logs them as warnings). */
  notices: string[];
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
  const instance = opts.instance ?? LONE_INSTANCE;
  const db: Db = isPostgresUrl(target)
    ? openPostgres(target, { applicationName: `watchkeeper ${instance}` })
    : openDatabase(target, opts);
  let pgvector: PgvectorUse = { used: false, problem: null };
  try {
    migrate(db, opts.migrationsDir);
    if (db instanceof PostgresDb) pgvector = detectPgvector(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return {
    db,
    notices: pgvector.problem === null ? [] : [pgvector.problem],
    instance,
    sessions: createSessionStore(db, instance),
    sessionRecords: createSessionRecordStore(db, instance),
    events: createEventStore(db, instance),
    memories: createMemoryStore(db),
    cooldowns: createCooldownStore(db, instance),
    stats: createStatsStore(db),
    metrics: createMetricsStore(db),
    search: createSearchStore(db, { pgvector: pgvector.used }),
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
    cooldownOverrides: createCooldownOverrideStore(db, instance),
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
  cutResultJson,
  serviceJson,
  sessionJson,
  sessionMemoryJson,
} from './json.js';
