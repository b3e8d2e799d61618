/**
 * The PostgreSQL schema (migrations/postgres) is the SQLite schema (migrations/0001..) on the other
 * engine: the same tables and columns in the same order, keys, foreign keys and indexes; SQLite's
 * functions the store SQL calls give the same answers; the triggers that keep event groups and
 * vectors do the same; and every change is announced to the fleet with NOTIFY.
 */
import { join } from 'node:path';

import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MIGRATIONS_DIR, readMigrations } from '../../src/db/migrate.js';
import {
  type AsyncFreshDatabase,
  freshDatabase,
  postgresAvailable,
  skipWithoutPostgres,
} from '../helpers/postgres.js';

skipWithoutPostgres();

const POSTGRES_MIGRATIONS = join(MIGRATIONS_DIR, 'postgres');

/** Tables PostgreSQL has and SQLite has not: the words around an idea (ideas_fts in SQLite). */
const POSTGRES_ONLY_TABLES = ['idea_context'];

/** SQLite's COLLATE NOCASE columns, citext here. */
const NOCASE_COLUMNS = ['entities.name', 'entity_aliases.alias'];

const ON_DELETE: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

// ----- the two engines -----------------------------------------------------------------------

function sqliteStore(): Database.Database {
  const db = new Database(':memory:');
  for (const m of readMigrations()) db.exec(m.sql);
  return db;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Each PostgreSQL migration in its own transaction, as the migrator runs them. */
async function applyPostgresMigrations(client: pg.Client): Promise<void> {
  for (const m of readMigrations(POSTGRES_MIGRATIONS)) {
    await client.query('BEGIN');
    try {
      await client.query(m.sql);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw new Error(`${m.name}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** The migrated database every test's database is copied from. */
let schema: AsyncFreshDatabase | null = null;

beforeAll(async () => {
  if (!postgresAvailable()) return;
  schema = await freshDatabase();
  const client = await connect(schema.url);
  try {
    await applyPostgresMigrations(client);
  } finally {
    await client.end();
  }
});

afterAll(async () => {
  await schema?.drop();
});

interface Engines {
  lite: Database.Database;
  pg: pg.Client;
  url: string;
  close(): Promise<void>;
}

/** A fresh SQLite store and a fresh PostgreSQL database with the schema. */
async function engines(): Promise<Engines> {
  const db = await freshDatabase({ template: schema!.name });
  const client = await connect(db.url);
  const lite = sqliteStore();
  return {
    lite,
    pg: client,
    url: db.url,
    async close() {
      lite.close();
      await client.end();
      await db.drop();
    },
  };
}

/** `?` placeholders (the statements here have no `?` in their text) as PostgreSQL's `$n`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

type Cell = string | null;

const cell = (v: unknown): Cell =>
  v === null || v === undefined ? null : Buffer.isBuffer(v) ? v.toString('hex') : String(v);

/** Runs one statement on both engines. */
async function run(e: Engines, sql: string, params: unknown[] = []): Promise<void> {
  e.lite.prepare(sql).run(...params);
  await e.pg.query(numbered(sql), params);
}

/** A query's rows on both engines, every value as text (integers come back as text from pg). */
async function rows(
  e: Engines,
  sql: string,
  params: unknown[] = [],
  pgSql: string = numbered(sql),
): Promise<{ sqlite: Cell[][]; postgres: Cell[][] }> {
  const sqlite = (
    e.lite
      .prepare(sql)
      .raw()
      .all(...params) as unknown[][]
  ).map((r) => r.map(cell));
  const result = await e.pg.query({ text: pgSql, values: params, rowMode: 'array' });
  const postgres = (result.rows as unknown[][]).map((r) => r.map(cell));
  return { sqlite, postgres };
}

async function expectSameRows(e: Engines, sql: string, params: unknown[] = []): Promise<Cell[][]> {
  const { sqlite, postgres } = await rows(e, sql, params);
  expect(postgres, sql).toEqual(sqlite);
  return sqlite;
}

// ----- the schemas as the catalogs describe them ---------------------------------------------

interface Column {
  name: string;
  /** SQLite's declared type, or PostgreSQL's type name. */
  type: string;
  notNull: boolean;
  default: string | null;
  primaryKey: boolean;
}

interface Shape {
  columns: Column[];
  /** Unique keys (the primary key included): `a,b` or `a,b WHERE ...` for a partial one. */
  uniques: string[];
  /** `col -> parent(col) ON DELETE action` */
  foreignKeys: string[];
  /** Named indexes: `UNIQUE? col [DESC],... [partial]`. */
  indexes: Record<string, string>;
  /** How many CHECK constraints the table has. */
  checks: number;
}

function sqliteShapes(db: Database.Database): Map<string, Shape> {
  const all = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as {
    name: string;
    sql: string | null;
  }[];
  const virtual = all.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name);
  const names = all
    .map((t) => t.name)
    .filter(
      (n) => !n.startsWith('sqlite_') && !virtual.some((v) => n === v || n.startsWith(`${v}_`)),
    )
    .sort();
  const shapes = new Map<string, Shape>();
  for (const table of names) {
    const info = db.prepare('SELECT * FROM pragma_table_info(?)').all(table) as {
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    const indexes = db
      .prepare('SELECT name, "unique" AS uniq, origin, partial FROM pragma_index_list(?)')
      .all(table) as { name: string; uniq: number; origin: string; partial: number }[];
    const keyColumns = (index: string) =>
      (
        db
          .prepare(
            'SELECT name, "desc" AS descending, key FROM pragma_index_xinfo(?) ORDER BY seqno',
          )
          .all(index) as { name: string; descending: number; key: number }[]
      ).filter((c) => c.key === 1);
    const uniques = indexes
      .filter((ix) => ix.uniq === 1)
      .map((ix) =>
        describeKey(
          keyColumns(ix.name).map((c) => c.name),
          ix.partial === 1,
        ),
      );
    if (!indexes.some((ix) => ix.origin === 'pk')) {
      const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
      if (pk.length > 0)
        uniques.push(
          describeKey(
            pk.map((c) => c.name),
            false,
          ),
        );
    }
    const named: Record<string, string> = {};
    for (const ix of indexes.filter((x) => x.origin === 'c')) {
      named[ix.name] = describeIndex(
        keyColumns(ix.name).map((c) => ({ name: c.name, descending: c.descending === 1 })),
        ix.uniq === 1,
        ix.partial === 1,
      );
    }
    const foreignKeys = (
      db.prepare('SELECT * FROM pragma_foreign_key_list(?)').all(table) as {
        table: string;
        from: string;
        to: string;
        on_delete: string;
      }[]
    ).map((f) => `${f.from} -> ${f.table}(${f.to}) ON DELETE ${f.on_delete}`);
    shapes.set(table, {
      columns: info.map((c) => ({
        name: c.name,
        type: c.type,
        notNull: c.notnull === 1,
        default: c.dflt_value,
        primaryKey: c.pk > 0,
      })),
      uniques: uniques.sort(),
      foreignKeys: foreignKeys.sort(),
      indexes: named,
      checks: (all.find((t) => t.name === table)!.sql!.match(/\bCHECK\s*\(/gi) ?? []).length,
    });
  }
  return shapes;
}

function describeKey(columns: string[], partial: boolean): string {
  return `${columns.join(',')}${partial ? ' (partial)' : ''}`;
}

function describeIndex(
  columns: { name: string; descending: boolean }[],
  unique: boolean,
  partial: boolean,
): string {
  const cols = columns.map((c) => `${c.name}${c.descending ? ' DESC' : ''}`).join(',');
  return `${unique ? 'UNIQUE ' : ''}${cols}${partial ? ' (partial)' : ''}`;
}

interface PgIndexColumn {
  name: string;
  descending: boolean;
  nullsFirst: boolean;
}

interface PgShapes {
  shapes: Map<string, Shape>;
  /** Every index's key columns with their order, by index name (expression columns left out). */
  indexColumns: Map<string, { table: string; columns: PgIndexColumn[] }>;
  /** Column details SQLite has no counterpart for, by `table.column`. */
  details: Map<string, { collation: string | null; identity: string | null; udt: string }>;
  /** Tables with the statement trigger that announces changes. */
  announced: Set<string>;
}

async function postgresShapes(client: pg.Client): Promise<PgShapes> {
  const columns = (
    await client.query<{
      table_name: string;
      column_name: string;
      data_type: string;
      udt_name: string;
      is_nullable: string;
      column_default: string | null;
      collation_name: string | null;
      is_identity: string;
      identity_generation: string | null;
    }>(`SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default,
          collation_name, is_identity, identity_generation
        FROM information_schema.columns WHERE table_schema = current_schema()
        ORDER BY table_name, ordinal_position`)
  ).rows;
  const indexes = (
    await client.query<{
      tbl: string;
      name: string;
      uniq: boolean;
      pk: boolean;
      partial: boolean;
      cols: { name: string; descending: boolean; nullsFirst: boolean }[] | null;
    }>(`SELECT t.relname AS tbl, i.relname AS name, ix.indisunique AS uniq, ix.indisprimary AS pk,
          ix.indpred IS NOT NULL AS partial,
          (SELECT json_agg(json_build_object('name', a.attname,
              'descending', (ix.indoption[k.n - 1] & 1) = 1,
              'nullsFirst', (ix.indoption[k.n - 1] & 2) = 2) ORDER BY k.n)
            FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k (attnum, n)
            JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS cols
        FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid
          JOIN pg_class i ON i.oid = ix.indexrelid
        WHERE t.relnamespace = current_schema()::regnamespace`)
  ).rows;
  const foreignKeys = (
    await client.query<{ tbl: string; parent: string; del: string; cols: string; refs: string }>(
      `SELECT t.relname AS tbl, p.relname AS parent, c.confdeltype AS del,
          (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.conkey)
            WITH ORDINALITY AS k (attnum, n)
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS cols,
          (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.confkey)
            WITH ORDINALITY AS k (attnum, n)
            JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) AS refs
        FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
          JOIN pg_class p ON p.oid = c.confrelid
        WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`,
    )
  ).rows;
  const checks = (
    await client.query<{ tbl: string; n: number }>(
      `SELECT t.relname AS tbl, count(*)::integer AS n FROM pg_constraint c
        JOIN pg_class t ON t.oid = c.conrelid
        WHERE c.contype = 'c' AND c.connamespace = current_schema()::regnamespace
        GROUP BY t.relname`,
    )
  ).rows;
  const triggers = (
    await client.query<{ tbl: string }>(
      `SELECT t.relname AS tbl FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid
        WHERE g.tgname = 'wk_notify_change' AND t.relnamespace = current_schema()::regnamespace
          AND (g.tgtype & 1) = 0 AND (g.tgtype & 28) = 28`,
    )
  ).rows;

  const shapes = new Map<string, Shape>();
  const shape = (table: string) => {
    let s = shapes.get(table);
    if (!s) {
      s = { columns: [], uniques: [], foreignKeys: [], indexes: {}, checks: 0 };
      shapes.set(table, s);
    }
    return s;
  };
  const details: PgShapes['details'] = new Map();
  for (const c of columns) {
    shape(c.table_name).columns.push({
      name: c.column_name,
      type: c.data_type === 'USER-DEFINED' ? c.udt_name : c.data_type,
      notNull: c.is_nullable === 'NO',
      default: c.column_default,
      primaryKey: false,
    });
    details.set(`${c.table_name}.${c.column_name}`, {
      collation: c.collation_name,
      identity: c.is_identity === 'YES' ? c.identity_generation : null,
      udt: c.udt_name,
    });
  }
  const indexColumns: PgShapes['indexColumns'] = new Map();
  for (const ix of indexes) {
    const s = shape(ix.tbl);
    const cols = ix.cols ?? [];
    if (ix.pk) {
      for (const c of s.columns) if (cols.some((k) => k.name === c.name)) c.primaryKey = true;
    }
    if (ix.uniq) {
      s.uniques.push(
        describeKey(
          cols.map((c) => c.name),
          ix.partial,
        ),
      );
    }
    s.indexes[ix.name] = describeIndex(cols, ix.uniq, ix.partial);
    indexColumns.set(ix.name, { table: ix.tbl, columns: cols });
  }
  for (const f of foreignKeys) {
    shape(f.tbl).foreignKeys.push(
      `${f.cols} -> ${f.parent}(${f.refs}) ON DELETE ${ON_DELETE[f.del]}`,
    );
  }
  for (const c of checks) shape(c.tbl).checks = c.n;
  for (const s of shapes.values()) {
    s.uniques.sort();
    s.foreignKeys.sort();
  }
  return { shapes, indexColumns, details, announced: new Set(triggers.map((t) => t.tbl)) };
}

/** A column default as text to compare: no casts, no quotes around a number. */
function normalDefault(value: string | null): string | null {
  if (value === null) return null;
  let v = value.replace(/::[a-z ]+(\[\])?/g, '');
  v = v.replace(/^\((.*)\)$/, '$1');
  return v.replace(/^'(-?[\d.]+)'$/, '$1');
}

const POSTGRES_TYPE: Record<string, string> = {
  INTEGER: 'bigint',
  REAL: 'double precision',
  TEXT: 'text',
  BLOB: 'bytea',
};

// ----- the tests ------------------------------------------------------------------------------

describe('the PostgreSQL schema', () => {
  let lite: Map<string, Shape>;
  let postgres: PgShapes;

  beforeAll(async () => {
    if (!postgresAvailable()) return;
    const db = sqliteStore();
    lite = sqliteShapes(db);
    db.close();
    const client = await connect(schema!.url);
    try {
      postgres = await postgresShapes(client);
    } finally {
      await client.end();
    }
  });

  it('is migrations/postgres/0001_schema.sql, numbered and hashed as the SQLite migrations are', () => {
    const migrations = readMigrations(POSTGRES_MIGRATIONS);
    expect(migrations[0]).toMatchObject({ version: 1, name: '0001_schema.sql' });
    expect(migrations[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('has every SQLite table but the full-text ones, and the words around ideas', () => {
    expect(lite.size).toBeGreaterThan(30);
    expect([...lite.keys()]).not.toContain('memories_fts');
    const tables = [...postgres.shapes.keys()];
    expect(tables).toEqual(expect.arrayContaining([...lite.keys(), ...POSTGRES_ONLY_TABLES]));
    expect(tables.filter((t) => t.endsWith('_fts'))).toEqual([]);
  });

  it('has the same columns in the same order, with the types, NOT NULLs and defaults', () => {
    for (const [table, s] of lite) {
      const p = postgres.shapes.get(table)!;
      expect(
        p.columns.map((c) => c.name),
        table,
      ).toEqual(s.columns.map((c) => c.name));
      for (const [i, c] of s.columns.entries()) {
        const pc = p.columns[i]!;
        const where = `${table}.${c.name}`;
        const expected = NOCASE_COLUMNS.includes(where) ? 'citext' : POSTGRES_TYPE[c.type];
        expect(pc.type, where).toBe(expected);
        // SQLite lets a primary key column hold NULL (unless it is the rowid); PostgreSQL never.
        if (!c.primaryKey) expect(pc.notNull, where).toBe(c.notNull);
        expect(pc.primaryKey, where).toBe(c.primaryKey);
        expect(normalDefault(pc.default), where).toBe(normalDefault(c.default));
      }
    }
  });

  it('compares and sorts every text column by its bytes, as SQLite does', () => {
    for (const [column, d] of postgres.details) {
      if (d.udt === 'text' || d.udt === 'citext') expect(d.collation, column).toBe('C');
    }
  });

  it('numbers the rows of every table keyed by an integer id, and accepts an id given', () => {
    for (const [table, s] of lite) {
      const id = s.columns.find((c) => c.name === 'id');
      const numberedByDatabase = id?.type === 'INTEGER' && id.primaryKey;
      expect(postgres.details.get(`${table}.id`)?.identity ?? null, table).toBe(
        numberedByDatabase ? 'BY DEFAULT' : null,
      );
    }
  });

  it('has the same unique keys, foreign keys (with their ON DELETE actions) and CHECKs', () => {
    for (const [table, s] of lite) {
      const p = postgres.shapes.get(table)!;
      expect(p.uniques, table).toEqual(s.uniques);
      expect(p.foreignKeys, table).toEqual(s.foreignKeys);
      expect(p.checks, `CHECK constraints of ${table}`).toBe(s.checks);
    }
  });

  it('has every SQLite index, on the same columns, in SQLite’s order of NULLs', () => {
    for (const [table, s] of lite) {
      const p = postgres.shapes.get(table)!;
      for (const [name, described] of Object.entries(s.indexes)) {
        expect(p.indexes[name], `${table}: ${name}`).toBe(described);
        // NULLs first when ascending, last when descending (the translated ORDER BY), except ids.
        for (const c of postgres.indexColumns.get(name)!.columns) {
          const nullsFirst = c.name === 'id' ? c.descending : !c.descending;
          expect(c.nullsFirst, `${name}.${c.name}`).toBe(nullsFirst);
        }
      }
    }
  });

  it('has a text-search index on each table SQLite searches with FTS5', () => {
    const textIndexes = [...postgres.indexColumns.entries()]
      .filter(([name]) => name.endsWith('_text'))
      .map(([name, ix]) => `${ix.table}:${name}`)
      .sort();
    expect(textIndexes).toEqual([
      'event_groups:event_groups_text',
      'events:events_text',
      'idea_context:idea_context_text',
      'ideas:ideas_text',
      'memories:memories_text',
      'services:services_text',
      'spans:spans_text',
    ]);
  });

  it('announces changes to every table of the store', () => {
    expect([...postgres.announced]).toEqual(
      expect.arrayContaining([...lite.keys(), ...POSTGRES_ONLY_TABLES]),
    );
  });
});

describe('the PostgreSQL schema at work', () => {
  it('gives json_each’s keys and values from wk_json_each', async () => {
    const e = await engines();
    try {
      const docs = [
        '[1,"a",null,2.5,true,false,{"x":1},[2,3],-7]',
        '[]',
        '["ü","say \\"hi\\"","a,b"]',
        '7',
        '"scalar"',
      ];
      for (const doc of docs) {
        const { sqlite, postgres } = await rows(
          e,
          'SELECT key, value FROM json_each(?)',
          [doc],
          'SELECT key, value FROM wk_json_each($1)',
        );
        expect(postgres, doc).toEqual(sqlite);
      }
      const none = await e.pg.query('SELECT value FROM wk_json_each(NULL)');
      expect(none.rows).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it('answers SQLite’s json_extract, json_valid, strftime and SUM of a comparison alike', async () => {
    const e = await engines();
    try {
      const doc = `'{"a":{"b":[1,2,{"c":"x"}]},"t":true,"n":null,"q":"say \\"hi\\"","d.e":3}'`;
      const expressions = [
        `json_extract(${doc}, '$.a.b[2].c')`,
        `json_extract(${doc}, '$.a.b[0]')`,
        `json_extract(${doc}, '$.a.b')`,
        `json_extract(${doc}, '$.t')`,
        `json_extract(${doc}, '$.n')`,
        `json_extract(${doc}, '$.q')`,
        `json_extract(${doc}, '$.missing')`,
        `json_extract(${doc}, '$."d.e"')`,
        `json_extract(NULL, '$.a')`,
        `CASE WHEN json_valid(${doc}) THEN 1 ELSE 0 END`,
        `CASE WHEN json_valid('{"a":') THEN 1 ELSE 0 END`,
        `CASE WHEN json_valid('') THEN 1 ELSE 0 END`,
        `CASE WHEN json_valid(NULL) THEN 1 ELSE 0 END`,
        `strftime('%Y-%m-%d', 1700000000123 / 1000, 'unixepoch')`,
        `strftime('%H:%M:%S %j %w %s %%', 1700000000123 / 1000, 'unixepoch')`,
        `strftime('%Y-%m-%dT%H:%M:%f', 1700000000.25, 'unixepoch')`,
        `strftime('%Y-%m-%d', NULL, 'unixepoch')`,
      ];
      for (const expression of expressions) await expectSameRows(e, `SELECT ${expression}`);
      const sums = [
        'WITH t (x) AS (VALUES (1), (2), (3), (NULL)) SELECT SUM(x > 1), SUM(x IN (1, 3)) FROM t',
        'WITH t (x) AS (VALUES (1), (2)) SELECT SUM(x > 1) FROM t WHERE x > 5',
      ];
      for (const sql of sums) await expectSameRows(e, sql);
    } finally {
      await e.close();
    }
  });

  it('keeps event groups as SQLite does when events are inserted and deleted', async () => {
    const e = await engines();
    try {
      const insert = `INSERT INTO events (source, level, service, message, created_at)
        VALUES (?, ?, ?, ?, ?)`;
      const events: [string, string, string | null, string, number][] = [
        ['agent', 'warning', 'db', 'slow queries', 1000],
        ['agent', 'warning', 'db', 'slow queries', 900],
        ['system', 'info', null, 'started', 500],
        ['agent', 'warning', 'db', 'slow queries', 1200],
        ['agent', 'critical', 'db', 'slow queries', 1100],
        ['agent', 'info', '', 'started', 600],
        ['agent', 'warning', 'api', 'slow queries', 1300],
      ];
      const compare = async () => {
        await expectSameRows(e, 'SELECT * FROM event_groups ORDER BY id');
        await expectSameRows(e, 'SELECT id, group_id FROM events ORDER BY id');
      };
      for (const ev of events) await run(e, insert, ev);
      const groups = await expectSameRows(e, 'SELECT * FROM event_groups ORDER BY id');
      expect(groups.map((g) => g.slice(1, 7))).toEqual([
        ['db', 'warning', 'slow queries', '3', '900', '1200'],
        ['', 'info', 'started', '2', '500', '600'],
        ['db', 'critical', 'slow queries', '1', '1100', '1100'],
        ['api', 'warning', 'slow queries', '1', '1300', '1300'],
      ]);
      await compare();
      // The last and the first of a group; then a whole group, in one statement with others.
      await run(e, 'DELETE FROM events WHERE created_at = ?', [1200]);
      await compare();
      await run(e, 'DELETE FROM events WHERE created_at = ?', [900]);
      await compare();
      await run(e, "DELETE FROM events WHERE message = 'started' OR service = 'api'");
      await compare();
      // A group that went comes back with a new id.
      await run(e, insert, ['system', 'info', null, 'started', 2000]);
      await compare();
      const [[count]] = (await rows(e, 'SELECT count(*) FROM event_groups')).postgres as [[Cell]];
      expect(count).toBe('3');
    } finally {
      await e.close();
    }
  });

  it('drops the vectors of deleted memories, ideas and spans, and of changed words', async () => {
    const e = await engines();
    try {
      const memory = `INSERT INTO memories (id, category, observation, confidence, base_confidence,
        created_at, updated_at, last_reinforced_at) VALUES (?, 'timing', ?, 0.5, 0.5, 1, 1, 1)`;
      const vector = (table: string, ref: string) =>
        `INSERT INTO ${table} (${ref}, model, dimension, vector, created_at) VALUES (?, 'm', 1, ?, 1)`;
      const blob = Buffer.from([1, 2]);
      for (const id of [1, 2, 3]) {
        await run(e, memory, [id, `observation ${id}`]);
        await run(e, vector('memory_vectors', 'memory_id'), [id, blob]);
      }
      await run(e, 'UPDATE memories SET observation = observation, confidence = 0.6 WHERE id = 1');
      await run(e, "UPDATE memories SET observation = 'new words' WHERE id = 2");
      await run(e, 'DELETE FROM memories WHERE id = 3');
      expect(await expectSameRows(e, 'SELECT memory_id FROM memory_vectors ORDER BY 1')).toEqual([
        ['1'],
      ]);

      const span = `INSERT INTO spans (id, session, parent_id, name, source_file, start_line,
        created_at) VALUES (?, 's', ?, ?, 'f', 1, 1)`;
      const idea = `INSERT INTO ideas (id, span_id, session, content, intent, role, source_file,
        source_line, created_at) VALUES (?, ?, 's', ?, 'decision', 'user', 'f', 1, 1)`;
      await run(e, span, [1, null, 'topic']);
      await run(e, span, [2, 1, 'sub-topic']);
      await run(e, span, [3, null, 'other topic']);
      await run(e, idea, [1, 2, 'use a queue']);
      await run(e, idea, [2, null, 'keep the cache']);
      await run(e, idea, [3, 3, 'drop the index']);
      for (const id of [1, 2, 3]) {
        await run(e, vector('idea_vectors', 'idea_id'), [id, blob]);
        await run(e, vector('span_vectors', 'span_id'), [id, blob]);
      }
      // A new idea has its (empty) words around it on PostgreSQL (ideas_fts's other columns).
      const context = await e.pg.query(
        'SELECT idea_id, turn, near, far FROM idea_context ORDER BY 1',
      );
      expect(context.rows).toEqual(
        [1, 2, 3].map((id) => ({ idea_id: String(id), turn: '', near: '', far: '' })),
      );

      await run(e, 'UPDATE ideas SET content = content WHERE id = 2');
      await run(e, "UPDATE spans SET summary = 'a summary' WHERE id = 3");
      // Deleting a span deletes its sub-spans and their ideas.
      await run(e, 'DELETE FROM spans WHERE id = 1');
      await expectSameRows(e, 'SELECT id FROM spans ORDER BY 1');
      await expectSameRows(e, 'SELECT id FROM ideas ORDER BY 1');
      expect(await expectSameRows(e, 'SELECT idea_id FROM idea_vectors ORDER BY 1')).toEqual([
        ['3'],
      ]);
      expect(await expectSameRows(e, 'SELECT span_id FROM span_vectors ORDER BY 1')).toEqual([]);
      const left = await e.pg.query('SELECT idea_id FROM idea_context ORDER BY 1');
      expect(left.rows).toEqual([{ idea_id: '2' }, { idea_id: '3' }]);
    } finally {
      await e.close();
    }
  });

  it('refuses what SQLite’s CHECK and UNIQUE constraints refuse', async () => {
    const e = await engines();
    try {
      await run(
        e,
        "INSERT INTO sessions (id, status, trigger, started_at) VALUES (1, 'running', 'manual', 1)",
      );
      await run(
        e,
        "INSERT INTO conversations (id, scope, created_at, updated_at) VALUES ('c1', 'ops', 1, 1)",
      );
      await run(e, "INSERT INTO entities (name, type) VALUES ('PostgreSQL', 'technology')");
      await run(e, "INSERT INTO entities (name, type) VALUES ('Ängel', 'person')");
      const memory = (columns: string, values: string) =>
        `INSERT INTO memories (category, observation, confidence, base_confidence, created_at,
          updated_at, last_reinforced_at${columns}) VALUES ${values}`;
      const refused = [
        memory('', "('timing', 'x', 1.5, 0.5, 1, 1, 1)"),
        memory('', "('timing', '', 0.5, 0.5, 1, 1, 1)"),
        memory('', "('weather', 'x', 0.5, 0.5, 1, 1, 1)"),
        memory(', importance', "('timing', 'x', 0.5, 0.5, 1, 1, 1, 'huge')"),
        memory(', importance_boost', "('timing', 'x', 0.5, 0.5, 1, 1, 1, 1.5)"),
        "INSERT INTO sessions (status, trigger, started_at) VALUES ('sleeping', 'manual', 1)",
        "INSERT INTO sessions (status, trigger, tier, started_at) VALUES ('running', 'manual', 4, 1)",
        `INSERT INTO cooldown_overrides (service, kind, actor, reason, created_at)
          VALUES ('db', 'allow', 'op', 'why', 1)`,
        `INSERT INTO cooldown_overrides (service, kind, extra, until_at, actor, reason, created_at)
          VALUES ('db', 'reset', 2, 5, 'op', 'why', 1)`,
        `INSERT INTO conversation_summaries (conversation_id, summary_text, start_seq, end_seq,
          status, created_at) VALUES ('c1', '', 0, 1, 'completed', 1)`,
        `INSERT INTO conversation_summaries (conversation_id, start_seq, end_seq, created_at)
          VALUES ('c1', 3, 1, 1)`,
        'INSERT INTO session_alert_repeats (session_id, repeats, last_at) VALUES (1, -1, 1)',
        'INSERT INTO session_alert_repeats (session_id, repeats, last_at) VALUES (99, 1, 1)',
        "INSERT INTO entity_relations (from_id, to_id, relation_type, created_at) VALUES (1, 2, '', 1)",
        "INSERT INTO notifications (kind, level, title, body, dedup_key, created_at, last_seen_at) VALUES ('x', 'info', 't', 'b', 'k', 1, 1)",
        // SQLite's NOCASE: one entity per name whatever its ASCII case.
        "INSERT INTO entities (name, type) VALUES ('postgresql', 'technology')",
        "INSERT INTO entity_aliases (alias, entity_id) VALUES ('PG', 1), ('pg', 1)",
        "INSERT INTO services (name, created_at, updated_at) VALUES ('db', 1, 1), ('db', 2, 2)",
      ];
      for (const sql of refused) {
        expect(() => e.lite.prepare(sql).run(), sql).toThrow();
        await expect(e.pg.query(sql), sql).rejects.toThrow();
      }
      // ... but not a letter outside ASCII, nor another type.
      await run(e, "INSERT INTO entities (name, type) VALUES ('ängel', 'person')");
      await run(e, "INSERT INTO entities (name, type) VALUES ('postgresql', 'concept')");
      const found = await expectSameRows(
        e,
        "SELECT name, type FROM entities WHERE name = 'POSTGRESQL' ORDER BY type",
      );
      expect(found).toEqual([
        ['postgresql', 'concept'],
        ['PostgreSQL', 'technology'],
      ]);
      await expectSameRows(e, 'SELECT name, type FROM entities ORDER BY name, type');
    } finally {
      await e.close();
    }
  });

  it('sorts text by its bytes, whatever the server’s locale', async () => {
    const e = await engines();
    try {
      for (const name of ['b', 'B', 'a', '_', 'é', 'Z', 'a b', 'ab', '10', '9']) {
        await run(e, 'INSERT INTO services (name, created_at, updated_at) VALUES (?, 1, 1)', [
          name,
        ]);
      }
      await expectSameRows(e, 'SELECT name FROM services ORDER BY name');
      await expectSameRows(
        e,
        "SELECT name FROM services WHERE name > 'B' AND name < 'b' ORDER BY name",
      );
    } finally {
      await e.close();
    }
  });

  it('takes rows with their own ids, and numbers the others', async () => {
    const e = await engines();
    try {
      const insert = `INSERT INTO sessions (id, status, trigger, started_at)
        VALUES ($1, 'completed', 'import', 1) RETURNING id`;
      expect((await e.pg.query(insert, [42])).rows).toEqual([{ id: '42' }]);
      await e.pg.query("SELECT setval(pg_get_serial_sequence('sessions', 'id'), 42)");
      const next = await e.pg.query(
        "INSERT INTO sessions (status, trigger, started_at) VALUES ('running', 'manual', 2) RETURNING id",
      );
      expect(next.rows).toEqual([{ id: '43' }]);
    } finally {
      await e.close();
    }
  });

  it('announces a committed change to memories on watchkeeper_changes, and only once committed', async () => {
    const e = await engines();
    const listener = await connect(e.url);
    try {
      await listener.query('LISTEN watchkeeper_changes');
      const first = new Promise<pg.Notification>((resolve) =>
        listener.once('notification', resolve),
      );
      const before = (await e.pg.query('SELECT wk_data_version() AS v')).rows[0].v as string;
      // A rolled-back change says nothing.
      await e.pg.query('BEGIN');
      await e.pg.query("INSERT INTO services (name, created_at, updated_at) VALUES ('db', 1, 1)");
      await e.pg.query('ROLLBACK');
      await e.pg.query(`INSERT INTO memories (category, observation, confidence, base_confidence,
        created_at, updated_at, last_reinforced_at) VALUES ('timing', 'x', 0.5, 0.5, 1, 1, 1)`);
      const notification = await first;
      expect(notification.channel).toBe('watchkeeper_changes');
      expect(notification.payload).toBe('memories');
      const after = (await e.pg.query('SELECT wk_data_version() AS v')).rows[0].v as string;
      expect(BigInt(after)).toBeGreaterThan(BigInt(before));
    } finally {
      await listener.end();
      await e.close();
    }
  });
});
