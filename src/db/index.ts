/** @module db: better-sqlite3 stores, one per table family, and the migrator. */
import { createCooldownStore } from './cooldowns.js';
import { createEventStore } from './events.js';
import { createMemoryStore } from './memories.js';
import { migrate } from './migrate.js';
import { type Db, openDatabase, type OpenOptions } from './open.js';
import { createSessionStore } from './sessions.js';
import { createStatsStore } from './stats.js';

export {
  type CooldownBlockRow,
  type CooldownRow,
  type CooldownStore,
  createCooldownStore,
  type NewCooldownAction,
  type ReportedOutcome,
} from './cooldowns.js';
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
  type HistoryAction,
  type HistoryRow,
  type MemoryChange,
  type MemoryFilter,
  type MemoryRow,
  type MemoryStore,
  type NewMemory,
} from './memories.js';
export { migrate, type MigrateResult, MIGRATIONS_DIR, readMigrations } from './migrate.js';
export { dataVersion, type Db, openDatabase, type OpenOptions, statementCache } from './open.js';
export {
  createSessionStore,
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
  type ActivityItem,
  createStatsStore,
  type LastRun,
  type OverviewCounts,
  type StatsStore,
} from './stats.js';

export interface Stores {
  db: Db;
  sessions: ReturnType<typeof createSessionStore>;
  events: ReturnType<typeof createEventStore>;
  memories: ReturnType<typeof createMemoryStore>;
  cooldowns: ReturnType<typeof createCooldownStore>;
  stats: ReturnType<typeof createStatsStore>;
  close(): void;
}

/** Opens the database, applies pending migrations and builds every store. */
export function openStores(
  path: string,
  opts: OpenOptions & { migrationsDir?: string } = {},
): Stores {
  const db = openDatabase(path, opts);
  try {
    migrate(db, opts.migrationsDir);
  } catch (err) {
    db.close();
    throw err;
  }
  return {
    db,
    sessions: createSessionStore(db),
    events: createEventStore(db),
    memories: createMemoryStore(db),
    cooldowns: createCooldownStore(db),
    stats: createStatsStore(db),
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
  sessionJson,
} from './json.js';
