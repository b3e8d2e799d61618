/**
 * A memory's history gains `shared` and `unshared` on both engines: SQLite's
 * 0021_share_actions.sql rebuilds the table (rows, indexes and the id high-water mark kept),
 * PostgreSQL's 0007_share_actions.sql changes the constraint in place; on both, what an older
 * release recorded as `edited` with a share's evidence becomes what it was.
 */
import { describe, expect, it } from 'vitest';

import { type Db } from '../../src/db/index.js';
import { olderSchemas } from '../helpers/migrations.js';
import { postgresAvailable, postgresOffReason } from '../helpers/postgres.js';

const schemas = olderSchemas();

const addHistory = (db: Db, action: string, evidence: string | null) =>
  db
    .prepare(
      `INSERT INTO memory_history (memory_id, action, old_confidence, new_confidence, created_at,
         source, evidence) VALUES (1, ?, 0.7, 0.7, 1, 'operator', ?)`,
    )
    .run(action, evidence);

/** Rows an older release wrote: a real edit, a share and an unshare (both as `edited`). */
function olderRows(db: Db) {
  addHistory(db, 'created', null);
  addHistory(db, 'edited', 'observation changed');
  addHistory(db, 'edited', 'shared with the fleet by instance cluster-a (learned by cluster-a)');
  addHistory(db, 'edited', 'unshared: kept by instance cluster-a');
  expect(() => addHistory(db, 'shared', null)).toThrow(/check constraint/i);
}

function expectActions(db: Db) {
  expect(db.prepare('SELECT id, action FROM memory_history ORDER BY id').all()).toEqual([
    { id: 1, action: 'created' },
    { id: 2, action: 'edited' },
    { id: 3, action: 'shared' },
    { id: 4, action: 'unshared' },
  ]);
  addHistory(db, 'shared', 'shared with the fleet by instance cluster-b (learned by cluster-b)');
  expect(() => addHistory(db, 'weird', null)).toThrow(/check constraint/i);
}

describe('migration 0021 on SQLite', () => {
  it('names the shares and unshares an older release recorded as edits, and keeps every row', () => {
    const db = schemas.sqlite(20);
    olderRows(db);
    addHistory(db, 'created', null);
    db.prepare('DELETE FROM memory_history WHERE id = 5').run(); // id 5 must never come back
    const indexes = () =>
      db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'memory_history' ORDER BY name",
        )
        .all();
    const before = indexes();

    expect(schemas.upgrade(db, 21)).toEqual(['0021_share_actions.sql']);
    expect(indexes()).toEqual(before);
    expectActions(db);
    expect(db.prepare('SELECT max(id) AS id FROM memory_history').get()).toEqual({ id: 6 });
  });
});

describe('migration 0007 on PostgreSQL', () => {
  it('names the shares and unshares an older release recorded as edits', async (ctx) => {
    if (!postgresAvailable()) return ctx.skip(postgresOffReason());
    const db = await schemas.postgres(6);
    olderRows(db);

    expect(schemas.upgrade(db, 7)).toEqual(['0007_share_actions.sql']);
    expectActions(db);
  });
});
