/**
 * The trigger `chat` joins the sessions table's CHECK on both engines: SQLite's
 * 0020_chat_trigger.sql rebuilds the table (every reference, index and the id high-water mark
 * kept), PostgreSQL's 0006_chat_trigger.sql changes the constraint in place. Each runs on a
 * database the migrations before it made, through the real migrator.
 */
import { describe, expect, it } from 'vitest';

import { createSessionStore, type Db } from '../../src/db/index.js';
import { olderSchemas } from '../helpers/migrations.js';
import { postgresAvailable, postgresOffReason } from '../helpers/postgres.js';

const schemas = olderSchemas();

const insertSession = (db: Db, trigger: string, parent: number | null) =>
  db
    .prepare(
      `INSERT INTO sessions (status, trigger, tier, started_at, parent_session_id, prompt)
       VALUES ('completed', ?, 1, 1, ?, 'kept')`,
    )
    .run(trigger, parent);

/** What both engines must show once migrated: old rows kept, `chat` taken, nonsense refused. */
function expectChatTaken(db: Db) {
  expect(db.prepare('SELECT id, trigger, prompt FROM sessions ORDER BY id').all()).toEqual([
    { id: 1, trigger: 'manual', prompt: 'kept' },
    { id: 2, trigger: 'escalation', prompt: 'kept' },
  ]);
  const sessions = createSessionStore(db);
  const id = sessions.start({ trigger: 'chat', tier: 1, prompt: 'Is nginx up?', startedAt: 2 });
  expect(sessions.get(id)).toMatchObject({ trigger: 'chat', prompt: 'Is nginx up?' });
  expect(() => insertSession(db, 'weird', null)).toThrow(/check constraint/i);
}

describe('migration 0020 on SQLite', () => {
  it('keeps every session, reference, index and the id high-water mark, and takes chat', () => {
    const db = schemas.sqlite(19);
    insertSession(db, 'manual', null);
    insertSession(db, 'escalation', 1);
    insertSession(db, 'api', null);
    db.prepare('DELETE FROM sessions WHERE id = 3').run(); // id 3 must never come back
    db.prepare(
      "INSERT INTO events (session_id, source, level, message, created_at) VALUES (2, 'agent', 'info', 'e', 1)",
    ).run();
    expect(() => insertSession(db, 'chat', null)).toThrow(/CHECK constraint failed/);
    const indexesBefore = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions'")
      .all();

    expect(schemas.upgrade(db, 20)).toEqual(['0020_chat_trigger.sql']);
    expect(db.prepare('SELECT session_id AS s FROM events').get()).toEqual({ s: 2 });
    expect(db.prepare('SELECT parent_session_id AS p FROM sessions WHERE id = 2').get()).toEqual({
      p: 1,
    });
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions'")
        .all(),
    ).toEqual(expect.arrayContaining(indexesBefore));
    expectChatTaken(db);
    expect(db.prepare("SELECT id FROM sessions WHERE trigger = 'chat'").get()).toEqual({ id: 4 });
  });
});

describe('migration 0006 on PostgreSQL', () => {
  it('keeps every session and takes chat', async (ctx) => {
    if (!postgresAvailable()) return ctx.skip(postgresOffReason());
    const db = await schemas.postgres(5);
    insertSession(db, 'manual', null);
    insertSession(db, 'escalation', 1);
    expect(() => insertSession(db, 'chat', null)).toThrow(/check constraint/i);

    expect(schemas.upgrade(db, 6)).toEqual(['0006_chat_trigger.sql']);
    expectChatTaken(db);
  });
});
