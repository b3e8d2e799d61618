/**
 * PostgreSQL's migrations: `migrations/postgres/NNNN_name.sql`, numbered, hashed and forward-only
 * like SQLite's (../migrate.ts, ../migration-files.ts). Any number of instances may start at once: all pending
 * migrations run in one transaction under an advisory lock, so one instance applies them and the
 * others, once the lock is theirs, find them recorded.
 */
import { fileURLToPath } from 'node:url';

import { AppError } from '../../errors.js';
import { checkRecorded, type MigrateResult, readMigrations } from '../migration-files.js';
import { underAdvisoryLock } from './advisory-lock.js';
import type { PostgresDb } from './database.js';

export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(
  new URL('../../../migrations/postgres/', import.meta.url),
);

/** The advisory lock key of watchkeeper's migrations (any constant shared by every instance). */
const MIGRATION_LOCK = 7_201_613_001;

export function migratePostgres(db: PostgresDb, dir = POSTGRES_MIGRATIONS_DIR): MigrateResult {
  const migrations = readMigrations(dir);
  const applied: string[] = [];
  const query = (text: string, params: unknown[] = []) =>
    db.call({ op: 'query', text, params, mode: 'plain' }).rows;
  // READ COMMITTED: after waiting for the lock, the migrations another instance just applied
  // are seen as recorded.
  underAdvisoryLock(db, MIGRATION_LOCK, () => {
    db.call({
      op: 'exec',
      text: `CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY,
        name TEXT NOT NULL, hash TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
    });
    const recorded = query(
      'SELECT version, name, hash FROM schema_migrations ORDER BY version',
    ) as { version: number; name: string; hash: string }[];
    checkRecorded(migrations, recorded);
    const done = new Set(recorded.map((r) => r.version));
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      try {
        db.call({ op: 'exec', text: m.sql });
      } catch (cause) {
        throw new AppError(
          'migration_failed',
          `migration postgres/${m.name} failed: ${(cause as Error).message}`,
          { cause },
        );
      }
      query(
        'INSERT INTO schema_migrations (version, name, hash, applied_at) VALUES ($1, $2, $3, $4)',
        [m.version, m.name, m.hash, Date.now()],
      );
      applied.push(m.name);
    }
  });
  db.refreshSchema();
  const current = migrations.length > 0 ? migrations[migrations.length - 1]!.version : 0;
  return { applied, current };
}
