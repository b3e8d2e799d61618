import { cpSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { migrate, MIGRATIONS_DIR, openDatabase, readMigrations } from '../../src/db/index.js';

const SHIPPED = readMigrations().map((m) => m.name);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watchkeeper-migrate-'));
  cpSync(MIGRATIONS_DIR, join(dir, 'migrations'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tables = (db: ReturnType<typeof openDatabase>) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((r) => r.name);

describe('migrate', () => {
  it('creates the schema once, records each file with its hash, and is a no-op the second time', () => {
    const db = openDatabase(join(dir, 'w.db'));
    const first = migrate(db, join(dir, 'migrations'));
    expect(first.applied).toEqual(SHIPPED);
    expect(SHIPPED[0]).toBe('0001_init.sql');
    expect(tables(db)).toEqual(
      expect.arrayContaining([
        'sessions',
        'events',
        'memories',
        'memory_history',
        'cooldown_actions',
      ]),
    );
    const row = db.prepare('SELECT hash FROM schema_migrations WHERE version = 1').get() as {
      hash: string;
    };
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(migrate(db, join(dir, 'migrations')).applied).toEqual([]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });

  it('lets two processes migrate a new data folder at once: what the other applied is skipped', () => {
    const file = join(dir, 'w.db');
    const first = openDatabase(file);
    const second = openDatabase(file);
    // The second has read what was applied (nothing) when the first applies everything.
    const late = migrate(second, join(dir, 'migrations'), {
      afterRead: () => expect(migrate(first, join(dir, 'migrations')).applied).toEqual(SHIPPED),
    });
    expect(late.applied).toEqual([]);
    expect(
      (second.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n,
    ).toBe(SHIPPED.length);
    first.close();
    second.close();
  });

  it('refuses to start when an applied migration was edited', () => {
    const db = openDatabase(join(dir, 'w.db'));
    migrate(db, join(dir, 'migrations'));
    appendFileSync(join(dir, 'migrations', '0001_init.sql'), '\n-- a harmless-looking edit\n');
    expect(() => migrate(db, join(dir, 'migrations'))).toThrow(
      /0001_init.sql was edited after it was applied/,
    );
    db.close();
  });

  it('rolls back a failing migration completely and keeps earlier data', () => {
    const db = openDatabase(join(dir, 'w.db'));
    migrate(db, join(dir, 'migrations'));
    db.prepare(
      "INSERT INTO events (source, level, message, created_at) VALUES ('system', 'info', 'kept', 1)",
    ).run();
    writeFileSync(
      join(dir, 'migrations', '0099_broken.sql'),
      'CREATE TABLE half_done (x INTEGER);\nTHIS IS NOT SQL;\n',
    );
    expect(() => migrate(db, join(dir, 'migrations'))).toThrow(/0099_broken.sql failed/);
    expect(tables(db)).not.toContain('half_done');
    expect(db.prepare('SELECT message FROM events').all()).toEqual([{ message: 'kept' }]);
    expect(db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get()).toEqual({
      n: SHIPPED.length,
    });
    db.close();
  });

  it('enforces the schema: an unknown memory category cannot be stored', () => {
    const db = openDatabase(':memory:');
    migrate(db, join(dir, 'migrations'));
    expect(() =>
      db
        .prepare(
          `INSERT INTO memories (category, observation, confidence, base_confidence, created_at, updated_at, last_reinforced_at)
        VALUES ('gossip', 'x', 0.7, 0.7, 1, 1, 1)`,
        )
        .run(),
    ).toThrow(/CHECK constraint failed/);
    db.close();
  });
});
