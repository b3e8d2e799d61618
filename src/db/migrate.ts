/**
 * Forward-only numbered migrations (`migrations/NNNN_name.sql`), each applied in its own
 * transaction and recorded with its sha256. A recorded file that has changed since it was
 * applied stops start-up: an applied migration is never edited.
 */
import { AppError } from '../errors.js';
import {
  checkRecorded,
  type MigrateResult,
  MIGRATIONS_DIR,
  readMigrations,
} from './migration-files.js';
import type { Db } from './open.js';
import { PostgresDb } from './postgres/database.js';
import { migratePostgres } from './postgres/migrate.js';

export {
  checkRecorded,
  type Migration,
  type MigrateResult,
  MIGRATIONS_DIR,
  readMigrations,
} from './migration-files.js';

/** A test's way into the moment between reading what was applied and applying the rest. */
export interface MigrateSeams {
  afterRead?: () => void;
}

/**
 * Applies every pending migration; refuses to run if an applied one was edited or removed.
 * Processes that start on the same new data folder at once (serve, an MCP server, a hook's
 * indexer) each apply what is pending: each migration is applied under the write lock, after a
 * second look at whether another process applied it meanwhile.
 */
export function migrate(db: Db, dir?: string, seams: MigrateSeams = {}): MigrateResult {
  if (db instanceof PostgresDb) return migratePostgres(db, dir);
  dir ??= MIGRATIONS_DIR;
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const migrations = readMigrations(dir);
  const recorded = db
    .prepare('SELECT version, name, hash FROM schema_migrations ORDER BY version')
    .all() as { version: number; name: string; hash: string }[];
  checkRecorded(migrations, recorded);
  const done = new Set(recorded.map((r) => r.version));
  const applied: string[] = [];
  const record = db.prepare(
    'INSERT INTO schema_migrations (version, name, hash, applied_at) VALUES (?, ?, ?, ?)',
  );
  const isRecorded = db.prepare('SELECT 1 AS one FROM schema_migrations WHERE version = ?');
  seams.afterRead?.();
  // A migration may rebuild a table that others reference (SQLite cannot change a constraint in
  // place), and dropping the old table with enforcement on would fire every ON DELETE action.
  // SQLite's documented procedure: enforcement off outside the transaction (the pragma is a
  // no-op inside one), every reference checked before the commit, enforcement restored.
  const enforced = db.pragma('foreign_keys', { simple: true }) === 1;
  if (enforced) db.pragma('foreign_keys = OFF');
  try {
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      // BEGIN IMMEDIATE takes the write lock (waiting out another writer up to busy_timeout),
      // so the second look sees every migration another process committed.
      try {
        db.exec('BEGIN IMMEDIATE');
        if (isRecorded.get(m.version)) {
          db.exec('COMMIT');
          continue;
        }
        db.exec(m.sql);
        const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
        if (broken.length > 0) {
          throw new Error(
            `it would leave ${broken.length} broken reference(s), the first from ${broken[0]!.table} to ${broken[0]!.parent}`,
          );
        }
        record.run(m.version, m.name, m.hash, Date.now());
        db.exec('COMMIT');
      } catch (cause) {
        rollback(db);
        throw new AppError(
          'migration_failed',
          `migration ${m.name} failed: ${(cause as Error).message}`,
          {
            cause,
          },
        );
      }
      applied.push(m.name);
    }
  } finally {
    if (enforced) db.pragma('foreign_keys = ON');
  }
  const current = migrations.length > 0 ? migrations[migrations.length - 1]!.version : 0;
  return { applied, current };
}

/** Ends a failed migration's transaction (an error in a statement may have ended it already). */
function rollback(db: Db): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // No transaction was open.
  }
}
