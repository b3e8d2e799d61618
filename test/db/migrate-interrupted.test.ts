/** 0005_interrupted.sql rebuilds the sessions table, which every other table references. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createSessionStore, migrate, MIGRATIONS_DIR, openDatabase } from '../../src/db/index.js';
import { migrationsUpTo } from '../helpers/migrations.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watchkeeper-migrate5-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('migration 0005 (interrupted sessions)', () => {
  it('keeps every session, every reference to one and the id high-water mark, and allows interrupted', () => {
    const db = openDatabase(join(dir, 'w.db'));
    migrate(db, migrationsUpTo(dir, MIGRATIONS_DIR, 4));
    const insert = db.prepare(
      `INSERT INTO sessions (status, trigger, tier, started_at, parent_session_id, simulated)
       VALUES (?, 'manual', ?, 1, ?, ?)`,
    );
    insert.run('escalated', 1, null, 1);
    insert.run('running', 2, 1, 0);
    insert.run('completed', 1, null, 0);
    db.prepare('DELETE FROM sessions WHERE id = 3').run(); // id 3 must never come back
    db.prepare(
      "INSERT INTO events (session_id, source, level, message, created_at) VALUES (2, 'agent', 'info', 'e', 1)",
    ).run();
    db.prepare(
      `INSERT INTO memories (service, category, observation, confidence, base_confidence,
        created_at, updated_at, last_reinforced_at, session_id, tier)
       VALUES ('web', 'timing', 'slow start', 0.7, 0.7, 1, 1, 1, 1, 1)`,
    ).run();
    db.prepare(
      "INSERT INTO cooldown_actions (service, action_type, success, session_id, created_at) VALUES ('web', 'restart', 1, 2, 1)",
    ).run();

    expect(migrate(db, migrationsUpTo(dir, MIGRATIONS_DIR, 5)).applied).toEqual([
      '0005_interrupted.sql',
    ]);

    expect(
      db.prepare('SELECT id, status, parent_session_id AS p, simulated, pgid FROM sessions').all(),
    ).toEqual([
      { id: 1, status: 'escalated', p: null, simulated: 1, pgid: null },
      { id: 2, status: 'running', p: 1, simulated: 0, pgid: null },
    ]);
    expect(db.prepare('SELECT session_id AS s FROM events').get()).toEqual({ s: 2 });
    expect(db.prepare('SELECT session_id AS s FROM memories').get()).toEqual({ s: 1 });
    expect(db.prepare('SELECT session_id AS s FROM cooldown_actions').get()).toEqual({ s: 2 });
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('foreign_key_check')).toEqual([]);

    // The store as it opens today: on the schema every later migration gives it.
    migrate(db);
    const sessions = createSessionStore(db);
    expect(sessions.start({ trigger: 'manual', tier: 1, startedAt: 2 })).toBe(4);
    expect(sessions.markInterrupted(2, 5, 'gone')).toBe(true);
    expect(sessions.get(2)).toMatchObject({ status: 'interrupted', endedAt: 5, error: 'gone' });
    expect(() => db.prepare("UPDATE sessions SET status = 'weird' WHERE id = 1").run()).toThrow(
      /CHECK constraint failed/,
    );
    // The indexes came back with the table.
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions'")
      .all();
    expect(indexes).toEqual(
      expect.arrayContaining([
        { name: 'idx_sessions_started' },
        { name: 'idx_sessions_parent' },
        { name: 'idx_sessions_status' },
      ]),
    );
    db.close();
  });

  it('refuses, and rolls back, a migration that would leave a broken reference', () => {
    const db = openDatabase(join(dir, 'w.db'));
    const folder = migrationsUpTo(dir, MIGRATIONS_DIR, 5);
    migrate(db, folder);
    db.prepare(
      "INSERT INTO sessions (status, trigger, started_at) VALUES ('completed', 'manual', 1)",
    ).run();
    db.prepare(
      "INSERT INTO events (session_id, source, level, message, created_at) VALUES (1, 'agent', 'info', 'kept', 1)",
    ).run();
    // With enforcement off during migrations, nothing but the check stops this.
    writeFileSync(join(folder, '0098_drop_sessions.sql'), 'DELETE FROM sessions;\n');
    expect(() => migrate(db, folder)).toThrow(
      /0098_drop_sessions.sql failed: it would leave 1 broken reference\(s\), the first from events to sessions/,
    );
    expect(db.prepare('SELECT COUNT(*) AS n FROM sessions').get()).toEqual({ n: 1 });
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });
});
