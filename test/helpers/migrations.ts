/**
 * An older release's schema, for testing a migration on the database it finds: a copy of one
 * engine's shipped migrations (`from`: MIGRATIONS_DIR, or its `postgres` folder) up to and
 * including number `last`, in a new folder under `dir`.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach } from 'vitest';

import { type Db, migrate, MIGRATIONS_DIR, openDatabase } from '../../src/db/index.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { freshDatabase } from './postgres.js';

let copies = 0;

export function migrationsUpTo(dir: string, from: string, last: number): string {
  copies += 1;
  const out = join(dir, `migrations-upto-${last}-${copies}`);
  cpSync(from, out, { recursive: true });
  for (const f of readdirSync(out))
    if (!/^\d{4}_/.test(f) || Number(f.slice(0, 4)) > last) {
      rmSync(join(out, f), { recursive: true });
    }
  return out;
}

/**
 * Databases at an older release's schema, for one file's tests of a migration: `sqlite(last)` and
 * `postgres(last)` open a new database migrated up to number `last` (PostgreSQL: check
 * postgresAvailable() first), `upgrade(db, last)` runs its engine's migrations up to `last` and
 * says which it applied. Each test gets a scratch folder; its databases are closed (PostgreSQL's
 * dropped) and the folder removed after it. Call at the top of the file.
 */
export function olderSchemas() {
  let dir = '';
  const cleanUps: (() => unknown)[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watchkeeper-migrate-'));
  });
  afterEach(async () => {
    for (const clean of cleanUps.splice(0).reverse()) await clean();
    rmSync(dir, { recursive: true, force: true });
  });
  const folder = (db: Db) =>
    db.engine === 'postgres' ? join(MIGRATIONS_DIR, 'postgres') : MIGRATIONS_DIR;
  const upgrade = (db: Db, last: number): string[] =>
    migrate(db, migrationsUpTo(dir, folder(db), last)).applied;
  return {
    upgrade,
    sqlite(last: number): Db {
      const db = openDatabase(join(dir, 'w.db'));
      cleanUps.push(() => db.close());
      upgrade(db, last);
      return db;
    },
    async postgres(last: number): Promise<Db> {
      const fresh = await freshDatabase();
      cleanUps.push(() => fresh.drop());
      const db = openPostgres(fresh.url);
      cleanUps.push(() => db.close());
      upgrade(db, last);
      return db;
    },
  };
}
