/**
 * The numbered migration files (`NNNN_name.sql`), read and hashed, and the check that stops
 * start-up when one applied to a database was edited or removed since. Shared by both engines'
 * migrators (migrate.ts, postgres/migrate.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { AppError } from '../errors.js';

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
