/**
 * A cooldown override names the instance it applies to on both engines (SQLite's
 * 0022_override_instances.sql, PostgreSQL's 0009): the overrides an older release recorded, which
 * applied to every instance, stay fleet-wide, and a new one applies to its own instance alone.
 */
import { describe, expect, it } from 'vitest';

import { createCooldownOverrideStore, type Db } from '../../src/db/index.js';
import { olderSchemas } from '../helpers/migrations.js';
import { postgresAvailable, postgresOffReason } from '../helpers/postgres.js';

const schemas = olderSchemas();

const NOW = 1_000_000;

/** A reset an older release recorded, before overrides named an instance. */
const olderReset = (db: Db) =>
  db
    .prepare(
      `INSERT INTO cooldown_overrides (service, kind, actor, reason, created_at)
       VALUES ('jellyfin', 'reset', 'alice (dashboard)', 'disk replaced', ?)`,
    )
    .run(NOW);

async function expectScopes(db: Db) {
  const a = createCooldownOverrideStore(db, 'cluster-a');
  const b = createCooldownOverrideStore(db, 'cluster-b');
  await a.insert({
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
  it('keeps the older overrides fleet-wide, and scopes new ones to their instance', async () => {
    const db = schemas.sqlite(21);
    olderReset(db);
    expect(schemas.upgrade(db, 22)).toEqual(['0022_override_instances.sql']);
    await expectScopes(db);
  });
});

describe('migration 0009 on PostgreSQL', () => {
  it('keeps the older overrides fleet-wide, and scopes new ones to their instance', async (ctx) => {
    if (!postgresAvailable()) return ctx.skip(postgresOffReason());
    const db = await schemas.postgres(8);
    olderReset(db);
    expect(schemas.upgrade(db, 9)).toEqual(['0009_override_instances.sql']);
    await expectScopes(db);
  });
});
