/**
 * The translation of the stores' SQL (SQLite's dialect) into PostgreSQL's, rule by rule as the
 * header of src/db/postgres/sql-dialect.ts lists them; nothing inside literals or comments is
 * touched.
 */
import { describe, expect, it } from 'vitest';

import { translateSql } from '../../src/db/postgres/sql-dialect.js';

const WITH_ID = new Set(['memories', 'events']);
const pg = (sql: string) => translateSql(sql, WITH_ID);
/** The translated text with runs of white space as one space. */
const text = (sql: string) => pg(sql).text.replace(/\s+/g, ' ').trim();

describe('translating SQLite SQL for PostgreSQL', () => {
  it('numbers `?` placeholders in order', () => {
    expect(pg('SELECT * FROM t WHERE a = ? AND b > ?')).toMatchObject({
      text: 'SELECT * FROM t WHERE a = $1 AND b > $2',
      names: null,
      count: 2,
    });
  });

  it('numbers `@name` placeholders once per name, in order of first use', () => {
    expect(pg('UPDATE t SET a = @a, b = @b WHERE c = @a')).toMatchObject({
      text: 'UPDATE t SET a = $1, b = $2 WHERE c = $1',
      names: ['a', 'b'],
      count: 2,
    });
  });

  it('quotes camelCase aliases, and their uses elsewhere in the statement', () => {
    expect(text('SELECT created_at AS createdAt, id AS id FROM t ORDER BY createdAt DESC')).toBe(
      'SELECT created_at AS "createdAt", id AS id FROM t ORDER BY "createdAt" DESC NULLS LAST',
    );
    // A column of the same name qualified by a table is not the alias.
    expect(text('SELECT m.lastSeen AS lastSeen FROM m')).toBe(
      'SELECT m.lastSeen AS "lastSeen" FROM m',
    );
  });

  it('turns INSERT OR IGNORE into ON CONFLICT DO NOTHING, keeping a conflict target given', () => {
    expect(text('INSERT OR IGNORE INTO tags (name) VALUES (?)')).toBe(
      'INSERT INTO tags (name) VALUES ($1) ON CONFLICT DO NOTHING',
    );
    expect(text('INSERT OR IGNORE INTO tags (name) VALUES (?) ON CONFLICT (name) DO NOTHING')).toBe(
      'INSERT INTO tags (name) VALUES ($1) ON CONFLICT (name) DO NOTHING',
    );
  });

  it('compares with IS / IS NOT a parameter as IS [NOT] DISTINCT FROM', () => {
    expect(text('SELECT 1 FROM t WHERE a IS ? AND b IS NOT ? AND c IS NULL')).toBe(
      'SELECT 1 FROM t WHERE a IS NOT DISTINCT FROM $1 AND b IS DISTINCT FROM $2 AND c IS NULL',
    );
  });

  it('matches LIKE without regard to ASCII case, as SQLite does (ILIKE)', () => {
    expect(text("SELECT 1 FROM t WHERE a LIKE ? ESCAPE '\\' AND b NOT LIKE 'x%'")).toBe(
      "SELECT 1 FROM t WHERE a ILIKE $1 ESCAPE '\\' AND b NOT ILIKE 'x%'",
    );
  });

  it('takes scalar max/min of two or more arguments as GREATEST/LEAST, not the aggregates', () => {
    expect(text('SELECT max(a, 0), MIN(b, c, 3), max(d), min(e) FROM t')).toBe(
      'SELECT GREATEST(a, 0), LEAST(b, c, 3), max(d), min(e) FROM t',
    );
    expect(text('SELECT max(coalesce(a, 0) - b, 0) FROM t')).toBe(
      'SELECT GREATEST(coalesce(a, 0) - b, 0) FROM t',
    );
  });

  it('calls the schema function wk_json_each for json_each', () => {
    expect(
      text('SELECT 1 FROM t WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))'),
    ).toBe('SELECT 1 FROM t WHERE id IN (SELECT CAST(value AS INTEGER) FROM wk_json_each($1))');
  });

  it('casts AS REAL to DOUBLE PRECISION', () => {
    expect(text('SELECT CAST(a AS REAL) / b FROM t')).toBe(
      'SELECT CAST(a AS DOUBLE PRECISION) / b FROM t',
    );
  });

  it("drops SQLite's unary + (its hint to keep off an index)", () => {
    expect(text('SELECT 1 FROM t WHERE +a = 1 AND +b = ? OR +c = 2')).toBe(
      'SELECT 1 FROM t WHERE a = 1 AND b = $1 OR c = 2',
    );
    // Arithmetic keeps its plus.
    expect(text('SELECT a + 1 FROM t WHERE b = c + 2')).toBe('SELECT a + 1 FROM t WHERE b = c + 2');
  });

  it('joins with JOIN ... ON where SQLite was given CROSS JOIN ... ON (a join order hint)', () => {
    expect(text('SELECT 1 FROM json_each(?) j CROSS JOIN memories m ON m.id = j.value')).toBe(
      'SELECT 1 FROM wk_json_each($1) j JOIN memories m ON m.id = j.value',
    );
    expect(text('SELECT 1 FROM a CROSS JOIN b')).toBe('SELECT 1 FROM a CROSS JOIN b');
  });

  it('reads an integer flag parameter as a condition in CASE WHEN ? THEN', () => {
    expect(text('SELECT CASE WHEN ? THEN 1 ELSE 0 END')).toBe(
      'SELECT CASE WHEN $1::bigint <> 0 THEN 1 ELSE 0 END',
    );
  });

  it('orders NULLs as SQLite does: first ascending, last descending, unless said', () => {
    expect(text('SELECT a FROM t ORDER BY a, b ASC, c DESC, d NULLS LAST LIMIT 5 OFFSET ?')).toBe(
      'SELECT a FROM t ORDER BY a NULLS FIRST, b ASC NULLS FIRST, c DESC NULLS LAST, d NULLS LAST LIMIT 5 OFFSET $1',
    );
    // In a subquery or window, up to its closing parenthesis.
    expect(
      text(
        'SELECT (SELECT x FROM u ORDER BY y DESC LIMIT 1), row_number() OVER (ORDER BY z) FROM t',
      ),
    ).toBe(
      'SELECT (SELECT x FROM u ORDER BY y DESC NULLS LAST LIMIT 1), row_number() OVER (ORDER BY z NULLS FIRST) FROM t',
    );
    // In an INSERT ... SELECT, up to its upsert clause.
    expect(
      text('INSERT INTO t (a) SELECT a FROM u WHERE true ORDER BY k ON CONFLICT DO NOTHING'),
    ).toBe(
      'INSERT INTO t (a) SELECT a FROM u WHERE true ORDER BY k NULLS FIRST ON CONFLICT DO NOTHING',
    );
  });

  it('returns the new id from an INSERT into a table with an id (lastInsertRowid)', () => {
    expect(pg('INSERT INTO events (message) VALUES (?);')).toMatchObject({
      text: 'INSERT INTO events (message) VALUES ($1) RETURNING id',
      returnsId: true,
    });
    expect(pg('INSERT INTO session_memories (a) VALUES (?)')).toMatchObject({ returnsId: false });
    expect(pg('INSERT INTO memories (a) VALUES (?) RETURNING id, a')).toMatchObject({
      returnsId: false,
    });
    expect(text('INSERT OR IGNORE INTO memories (a) VALUES (?)')).toBe(
      'INSERT INTO memories (a) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id',
    );
  });

  it('names the table a statement writes, and none for a read', () => {
    expect(pg('UPDATE memories SET a = ? WHERE id = ?').writes).toBe('memories');
    expect(pg('DELETE FROM Events WHERE id = ?').writes).toBe('events');
    expect(pg('INSERT OR IGNORE INTO tags (name) VALUES (?)').writes).toBe('tags');
    expect(pg('SELECT a FROM memories WHERE id = ?').writes).toBeNull();
  });

  it('leaves string literals, quoted names and comments as they are', () => {
    const sql = `SELECT 'a ? LIKE b AS fooBar', "max(a, b)" -- where x IS ?
      /* ORDER BY y */ FROM t WHERE a = ? ORDER BY 'q''s'`;
    expect(text(sql)).toBe(
      `SELECT 'a ? LIKE b AS fooBar', "max(a, b)" -- where x IS ? /* ORDER BY y */ FROM t WHERE a = $1 ORDER BY 'q''s' NULLS FIRST`,
    );
    expect(pg(sql).count).toBe(1);
  });
});
