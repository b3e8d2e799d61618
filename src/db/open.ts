/** Opens the SQLite file with the pragmas every connection needs. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import Database from 'better-sqlite3';

import { AppError } from '../errors.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** Milliseconds a writer waits for a lock held by another connection. */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

/** Opens (creating the folder if needed) a database file, or `:memory:`. */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  if (path !== ':memory:' && !opts.readonly) mkdirSync(dirname(path), { recursive: true });
  let db: Db;
  try {
    db = new Database(path, {
      readonly: opts.readonly ?? false,
      timeout: opts.busyTimeoutMs ?? 5000,
    });
  } catch (cause) {
    throw new AppError('io_failed', `cannot open database ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (!opts.readonly && path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  return db;
}
