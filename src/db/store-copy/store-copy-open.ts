/**
 * The two ends of `migrate-store`: the SQLite store (checked to be watchkeeper's, migrated to
 * this version first when it is older, then read through one read-only snapshot) and the
 * PostgreSQL database (a small pool, reached once before anything is read).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';

import type Database from 'better-sqlite3';
import type pg from 'pg';

import { AppError } from '../../errors.js';
import { migrate, readMigrations } from '../migrate.js';
import { openDatabase } from '../open.js';
import { openPostgres } from '../postgres/open.js';
import { isPostgresUrl, redactUrl } from '../postgres/url.js';

export interface CopySource {
  db: Database.Database;
  /** The file's absolute path. */
  path: string;
  /** Migrations applied to the store before it was read (empty when it was current). */
  migrated: string[];
  close(): void;
}

function appliedVersions(db: Database.Database, path: string): number[] {
  let hasTable: boolean;
  try {
    hasTable =
      db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        .get() !== undefined;
  } catch (cause) {
    throw new AppError(
      'invalid_input',
      `--from ${path} is not a SQLite database (${(cause as Error).message})`,
      { cause },
    );
  }
  const versions = hasTable
    ? (db.prepare('SELECT version, name FROM schema_migrations').all() as {
        version: number;
        name: string;
      }[])
    : [];
  if (!versions.some((r) => r.version === 1 && r.name === '0001_init.sql')) {
    throw new AppError(
      'invalid_input',
      `--from ${path} is a SQLite database but not a watchkeeper store (no record of its migrations)`,
    );
  }
  return versions.map((r) => r.version);
}

function openReadOnly(abs: string, path: string): Database.Database {
  try {
    return openDatabase(abs, { readonly: true });
  } catch (cause) {
    throw new AppError(
      'invalid_input',
      `--from ${path} is not a SQLite database (${(cause as Error).message})`,
      { cause },
    );
  }
}

/** Whether the file is a watchkeeper store (nothing written); returns its absolute path. */
export function checkCopySource(path: string): string {
  const abs = resolve(path);
  let isFile = false;
  try {
    isFile = statSync(abs).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) throw new AppError('input_unreadable', `--from ${path}: no such file`);
  const db = openReadOnly(abs, path);
  try {
    appliedVersions(db, path);
  } finally {
    db.close();
  }
  return abs;
}

/**
 * Opens the store for the copy: checked, migrated when older than this version (a store of a
 * newer watchkeeper is refused by the migrator), then read only, inside one read transaction so
 * that every table is read as of the same moment.
 */
export function openCopySource(path: string, migrationsDir?: string): CopySource {
  const abs = checkCopySource(path);
  let db = openReadOnly(abs, path);
  let migrated: string[] = [];
  try {
    const done = new Set(appliedVersions(db, path));
    if (readMigrations(migrationsDir).some((m) => !done.has(m.version))) {
      db.close();
      const writable = openDatabase(abs);
      try {
        migrated = migrate(writable, migrationsDir).applied;
      } finally {
        writable.close();
      }
      db = openReadOnly(abs, path);
    }
    db.exec('BEGIN');
    // The snapshot starts with the first read.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (err) {
    db.close();
    throw err;
  }
  return {
    db,
    path: abs,
    migrated,
    close: () => {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  };
}

/** Refuses anything but a postgres:// URL; the message never shows its password. */
export function checkPostgresUrl(url: string): void {
  let ok = isPostgresUrl(url);
  try {
    new URL(url);
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new AppError(
      'usage',
      `--to must be a postgres:// URL such as postgres://wk@db.example.com/watchkeeper, got "${redactUrl(url)}"`,
    );
  }
}

/** A pool on the target, reached once: unreachable is an error naming the URL without password. */
export async function connectCopyTarget(url: string): Promise<pg.Pool> {
  checkPostgresUrl(url);
  const { default: pgModule } = await import('pg');
  const pool = new pgModule.Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: 10_000,
    application_name: 'watchkeeper migrate-store',
  });
  // An idle client's error (the server went away) surfaces on the next query instead.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (cause) {
    await pool.end().catch(() => {});
    const e = cause as Error & { code?: string; errors?: Error[] };
    const detail = e.message || e.errors?.[0]?.message || e.code || 'no answer';
    throw new AppError(
      'db_unavailable',
      `cannot reach PostgreSQL at ${redactUrl(url)}: ${detail.replaceAll(url, redactUrl(url))}`,
      { cause },
    );
  }
  return pool;
}

/** Brings the target to this version's schema (PostgreSQL's migrator, under its advisory lock). */
export function migrateCopyTarget(url: string, migrationsDir?: string): string[] {
  const db = openPostgres(url, { applicationName: 'watchkeeper migrate-store' });
  try {
    return migrate(db, migrationsDir).applied;
  } finally {
    db.close();
  }
}
