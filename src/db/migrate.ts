/**
 * Forward-only numbered migrations (`migrations/NNNN_name.sql`), each applied in its own
 * transaction and recorded with its sha256. A recorded file that has changed since it was
 * applied stops start-up: an applied migration is never edited.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { AppError } from '../errors.js';
import type { Db } from './open.js';
import { PostgresDb } from './postgres/database.js';
import { migratePostgres } from './postgres/migrate.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  hash: string;
}

export interface MigrateResult {
  applied: string[];
  current: number;
}

export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const out: Migration[] = [];
  for (const name of files) {
    const m = FILE_NAME.exec(name);
    if (!m) {
      throw new AppError(
        'migration_failed',
        `migration file name must look like 0001_name.sql: ${name}`,
      );
    }
    const sql = readFileSync(join(dir, name), 'utf8').replace(/\r\n/g, '\n');
    const version = Number(m[1]);
    if (out.some((x) => x.version === version)) {
      throw new AppError('migration_failed', `two migrations share number ${m[1]}`);
    }
    out.push({ version, name, sql, hash: createHash('sha256').update(sql).digest('hex') });
  }
  return out;
}

/** Stops start-up when a migration applied to this database was edited or removed since. */
export function checkRecorded(
  migrations: readonly Migration[],
  recorded: readonly { version: number; name: string; hash: string }[],
): void {
  for (const row of recorded) {
    const file = migrations.find((m) => m.version === row.version);
    if (!file) {
      throw new AppError(
        'migration_changed',
        `migration ${row.name} was applied to this database but its file is gone; restore it`,
      );
    }
    if (file.hash !== row.hash) {
      throw new AppError(
        'migration_changed',
        `migration ${row.name} was edited after it was applied (sha256 ${row.hash.slice(0, 12)} ` +
          `recorded, ${file.hash.slice(0, 12)} on disk); add a new migration instead`,
      );
    }
  }
}

/** Applies every pending migration; refuses to run if an applied one was edited or removed. */
export function migrate(db: Db, dir?: string): MigrateResult {
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
  // A migration may rebuild a table that others reference (SQLite cannot change a constraint in
  // place), and dropping the old table with enforcement on would fire every ON DELETE action.
  // SQLite's documented procedure: enforcement off outside the transaction (the pragma is a
  // no-op inside one), every reference checked before the commit, enforcement restored.
  const enforced = db.pragma('foreign_keys', { simple: true }) === 1;
  if (enforced) db.pragma('foreign_keys = OFF');
  try {
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      const apply = db.transaction(() => {
        db.exec(m.sql);
        const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
        if (broken.length > 0) {
          throw new Error(
            `it would leave ${broken.length} broken reference(s), the first from ${broken[0]!.table} to ${broken[0]!.parent}`,
          );
        }
        record.run(m.version, m.name, m.hash, Date.now());
      });
      try {
        apply();
      } catch (cause) {
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
