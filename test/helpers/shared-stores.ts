/**
 * Two or more instances on one database, each with its own stores (its own connection): one
 * SQLite file, or, in the `postgres` test project (WATCHKEEPER_TEST_ENGINE=postgres), a fresh
 * database on the run's PostgreSQL server, dropped on close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openStores, type Stores } from '../../src/db/index.js';
import { migratedSqliteFile } from './db.js';
import { migratedDatabaseSync } from './postgres.js';

export interface SharedStores {
  /** The stores of each instance, by name. */
  of: Record<string, Stores>;
  /** A data folder per instance (their raw session logs are on their own disks). */
  dataDir: Record<string, string>;
  close(): void;
}

export function sharedStores(instances: string[]): SharedStores {
  const root = mkdtempSync(join(tmpdir(), 'watchkeeper-shared-'));
  let drop = () => {};
  let target = join(root, 'watchkeeper.db');
  if (process.env.WATCHKEEPER_TEST_ENGINE === 'postgres') {
    const database = migratedDatabaseSync();
    drop = database.drop;
    target = database.url;
  } else {
    migratedSqliteFile(target);
  }
  const of: Record<string, Stores> = {};
  const dataDir: Record<string, string> = {};
  const close = () => {
    for (const s of Object.values(of)) s.close();
    drop();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (const instance of instances) {
      of[instance] = openStores(target, { instance });
      dataDir[instance] = join(root, instance);
    }
  } catch (err) {
    close();
    throw err;
  }
  return { of, dataDir, close };
}
