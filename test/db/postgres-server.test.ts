/**
 * The run's PostgreSQL test server: it answers, and every fresh database is a database of its own
 * (asynchronous and synchronous helpers alike), gone once dropped.
 */
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';

import { freshDatabase, freshDatabaseSync, skipWithoutPostgres } from '../helpers/postgres.js';

skipWithoutPostgres();

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL test server', () => {
  it('answers with its version on loopback', async () => {
    const db = await freshDatabase();
    try {
      expect(db.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/wk_test_/);
      const [row] = await query<{ version: string }>(db.url, 'SELECT version()');
      expect(row!.version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await db.drop();
    }
  });

  it('gives two fresh databases that do not share tables', async () => {
    const a = await freshDatabase();
    const b = await freshDatabase();
    try {
      expect(a.url).not.toBe(b.url);
      await query(a.url, 'CREATE TABLE only_in_a (id int)');
      const inA = await query<{ n: string }>(
        a.url,
        "SELECT count(*) AS n FROM pg_tables WHERE tablename = 'only_in_a'",
      );
      const inB = await query<{ n: string }>(
        b.url,
        "SELECT count(*) AS n FROM pg_tables WHERE tablename = 'only_in_a'",
      );
      expect(inA[0]!.n).toBe('1');
      expect(inB[0]!.n).toBe('0');
      const [current] = await query<{ db: string }>(b.url, 'SELECT current_database() AS db');
      expect(current!.db).toBe(b.name);
    } finally {
      await a.drop();
      await b.drop();
    }
  });

  it('creates and drops a database synchronously', async () => {
    const db = freshDatabaseSync();
    const [current] = await query<{ db: string }>(db.url, 'SELECT current_database() AS db');
    expect(current!.db).toBe(db.name);
    db.drop();
    await expect(query(db.url, 'SELECT 1')).rejects.toThrow(/does not exist/);
  });

  it('copies a fresh database from the wk_template database', async () => {
    const db = await freshDatabase({ template: 'wk_template' });
    try {
      const rows = await query<{ datname: string }>(
        `${inject('postgresUrl')}/postgres`,
        "SELECT datname FROM pg_database WHERE datistemplate AND datname = 'wk_template'",
      );
      expect(rows).toEqual([{ datname: 'wk_template' }]);
      const [current] = await query<{ db: string }>(db.url, 'SELECT current_database() AS db');
      expect(current!.db).toBe(db.name);
    } finally {
      await db.drop();
    }
  });
});
