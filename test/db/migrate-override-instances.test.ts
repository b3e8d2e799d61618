/**
 * A cooldown override names the instance it applies to on both engines (SQLite's
 * 0022_override_instances.sql, PostgreSQL's 0009): the overrides an older release recorded, which
 * applied to every instance, stay fleet-wide, and a new one applies to its own instance alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  createCooldownOverrideStore,
  type Db,
  migrate,
  MIGRATIONS_DIR,
  openDatabase,
} from '../../src/db/index.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { migrationsUpTo } from '../helpers/migrations.js';
import { freshDatabase, postgresAvailable, postgresOffReason } from '../helpers/postgres.js';

let dir: string;
const cleanUps: (() => unknown)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watchkeeper-migrate22-'));
});
afterEach(async () => {
  for (const clean of cleanUps.splice(0).reverse()) await clean();
  rmSync(dir, { recursive: true, force: true });
});

const NOW = 1_000_000;

/** A reset an older release recorded, before overrides named an instance. */
const olderReset = (db: Db) =>
  db
    .prepare(
      `INSERT INTO cooldown_overrides (service, kind, actor, reason, created_at)
       VALUES ('jellyfin', 'reset', 'alice (dashboard)', 'disk replaced', ?)`,
    )
    .run(NOW);

function expectScopes(db: Db) {
  const a = createCooldownOverrideStore(db, 'cluster-a');
  const b = createCooldownOverrideStore(db, 'cluster-b');
  a.insert({
    service: 'caddy',
    actionType: null,
    kind: 'reset',
    extra: null,
    untilAt: null,
    actor: 'bob (dashboard)',
    reason: 'cert renewed',
    createdAt: NOW,
    fleetWide: false,
  });
  const seen = (store: typeof a) =>
    store.effective(NOW, 0).map((o) => [o.service, o.reason, o.instance]);
  expect(seen(a)).toEqual([
    ['jellyfin', 'disk replaced', null],
    ['caddy', 'cert renewed', 'cluster-a'],
  ]);
  expect(seen(b)).toEqual([['jellyfin', 'disk replaced', null]]);
}

describe('migration 0022 on SQLite', () => {
  it('keeps the older overrides fleet-wide, and scopes new ones to their instance', () => {
    const db = openDatabase(join(dir, 'w.db'));
    cleanUps.push(() => db.close());
    migrate(db, migrationsUpTo(dir, MIGRATIONS_DIR, 21));
    olderReset(db);
    expect(migrate(db, migrationsUpTo(dir, MIGRATIONS_DIR, 22)).applied).toEqual([
      '0022_override_instances.sql',
    ]);
    expectScopes(db);
  });
});

describe('migration 0009 on PostgreSQL', () => {
  it('keeps the older overrides fleet-wide, and scopes new ones to their instance', async (ctx) => {
    if (!postgresAvailable()) return ctx.skip(postgresOffReason());
    const fresh = await freshDatabase();
    cleanUps.push(() => fresh.drop());
    const db = openPostgres(fresh.url);
    cleanUps.push(() => db.close());
    const postgres = join(MIGRATIONS_DIR, 'postgres');
    migrate(db, migrationsUpTo(dir, postgres, 8));
    olderReset(db);
    expect(migrate(db, migrationsUpTo(dir, postgres, 9)).applied).toEqual([
      '0009_override_instances.sql',
    ]);
    expectScopes(db);
  });
});
