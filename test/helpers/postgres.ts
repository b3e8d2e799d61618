/**
 * Databases on the run's PostgreSQL test server (started by test/global-postgres.ts): each test
 * gets its own, uniquely named, dropped when it is done. A synchronous variant serves the
 * synchronous store helpers (testApp); it runs its statements on one connection per test
 * process, through the product's own synchronous PostgreSQL bridge.
 */
import { randomBytes } from 'node:crypto';

import pg from 'pg';
import { beforeEach, inject } from 'vitest';

import { openPostgres } from '../../src/db/postgres/open.js';
import type { PostgresDb } from '../../src/db/postgres/database.js';
import { TEMPLATE_DB } from './pg-tools.js';

export interface FreshDatabase {
  /** postgres://postgres@127.0.0.1:PORT/NAME */
  url: string;
  name: string;
}

export interface AsyncFreshDatabase extends FreshDatabase {
  drop(): Promise<void>;
}

export interface SyncFreshDatabase extends FreshDatabase {
  drop(): void;
}

export interface FreshDatabaseOptions {
  /** The database to copy: template0 (empty) unless asked, e.g. TEMPLATE_DB. */
  template?: string;
}

/** Whether the run has a PostgreSQL server (false only with WATCHKEEPER_TEST_POSTGRES=off). */
export function postgresAvailable(): boolean {
  return inject('postgresUrl') !== null;
}

/** Why there is no server, for a skipped test's note. */
export function postgresOffReason(): string {
  return inject('postgresOffReason') ?? 'no PostgreSQL test server';
}

/** Skip every test of the calling file (or suite) with the reason when there is no server. */
export function skipWithoutPostgres(): void {
  beforeEach((ctx) => {
    if (!postgresAvailable()) ctx.skip(postgresOffReason());
  });
}

function baseUrl(): string {
  const url = inject('postgresUrl');
  if (url === null) throw new Error(postgresOffReason());
  return url;
}

let counter = 0;

/** A database name no other test (worker, file) uses: pid, a counter and random bits. */
function uniqueName(): string {
  counter += 1;
  return `wk_test_${process.pid}_${counter}_${randomBytes(3).toString('hex')}`;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * CREATE DATABASE with the server's default strategy. On PostgreSQL 15+ that is WAL_LOG, which
 * copies a small database block by block through the log: five times faster here than
 * FILE_COPY, which forces two checkpoints per copy (64 against 326 ms per create and drop).
 */
function createSql(name: string, template: string): string {
  return `CREATE DATABASE ${quote(name)} TEMPLATE ${quote(template)}`;
}

function dropSql(name: string): string {
  return `DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${baseUrl()}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the test server (a copy of template0 unless told otherwise). */
export async function freshDatabase(o: FreshDatabaseOptions = {}): Promise<AsyncFreshDatabase> {
  const name = uniqueName();
  await adminQuery(createSql(name, o.template ?? 'template0'));
  return {
    name,
    url: `${baseUrl()}/${name}`,
    drop: () => adminQuery(dropSql(name)),
  };
}

let admin: PostgresDb | null = null;

/** A statement on the server's `postgres` database, on this process's admin connection. */
function adminSync(sql: string): void {
  admin ??= openPostgres(`${baseUrl()}/postgres`, { applicationName: 'watchkeeper tests' });
  admin.exec(sql);
}

/**
 * Migrated databases this process is done with, emptied and waiting for the next test, each with
 * the connection that empties it. Emptying a database costs 7 ms where copying the template and
 * dropping the copy costs 64: most store tests want a fresh, migrated store, and there are
 * hundreds of them.
 */
const spare: { name: string; db: PostgresDb }[] = [];

/** The shape of a database's schema: a test that changed it leaves a database nobody reuses. */
const SCHEMA_SHAPE = `SELECT md5(string_agg(format('%s:%s:%s', c.relname, c.relkind, c.relnatts), ','
  ORDER BY c.relname)) AS shape FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public'`;
const schemaShape = (db: PostgresDb) => (db.prepare(SCHEMA_SHAPE).get() as { shape: string }).shape;

interface TemplateFacts {
  shape: string;
  /** The public tables but the migrations' own. */
  tables: string[];
  sequences: string[];
  /** The rows migrations put in tables (search_horizon's one row), as JSON, by table. */
  seeded: Map<string, string>;
}
let template: TemplateFacts | null = null;

/** What a fresh copy of the template holds, read from the first copy this process makes. */
function templateFacts(db: PostgresDb): TemplateFacts {
  const tables = (
    db
      .prepare(
        `SELECT format('%I', tablename) AS t FROM pg_tables
         WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`,
      )
      .all() as { t: string }[]
  ).map((r) => r.t);
  const sequences = (
    db
      .prepare(
        `SELECT format('%I', sequencename) AS s FROM pg_sequences WHERE schemaname = 'public'`,
      )
      .all() as { s: string }[]
  ).map((r) => r.s);
  const seeded = new Map<string, string>();
  for (const t of tables) {
    const rows = db.prepare(`SELECT coalesce(json_agg(x), '[]')::text AS j FROM ${t} x`).get() as {
      j: string;
    };
    if (rows.j !== '[]') seeded.set(t, rows.j);
  }
  return { shape: schemaShape(db), tables, sequences, seeded };
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Brings a copy of the template back to what it was when copied: every table emptied (but the
 * migrations' own), the rows migrations put in refilled, every sequence back to its start.
 * Triggers are off meanwhile (session_replication_role), so this records no change and no
 * history. Connections the test left open are ended first, so that none of them writes into the
 * next test's store. False when the test changed the schema: that copy is dropped instead.
 */
function emptied(db: PostgresDb): boolean {
  db.exec(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  const t = template!;
  if (schemaShape(db) !== t.shape) return false;
  db.exec(
    [
      'SET session_replication_role = replica',
      ...t.tables.map((name) => `DELETE FROM ${name}`),
      ...[...t.seeded].map(
        ([name, rows]) =>
          `INSERT INTO ${name} SELECT * FROM json_populate_recordset(NULL::${name}, ${literal(rows)})`,
      ),
      ...t.sequences.map((s) => `ALTER SEQUENCE ${s} RESTART`),
      'SET session_replication_role = DEFAULT',
    ].join(';\n'),
  );
  return true;
}

/**
 * A new database with every migration applied: a copy of the run's migrated template, or one an
 * earlier test of this process used, emptied (see `emptied`).
 */
export function migratedDatabaseSync(): SyncFreshDatabase {
  const reused = spare.pop();
  const name = reused?.name ?? uniqueName();
  const url = `${baseUrl()}/${name}`;
  if (!reused) adminSync(createSql(name, TEMPLATE_DB));
  const db = reused?.db ?? openPostgres(url, { applicationName: 'watchkeeper tests' });
  template ??= templateFacts(db);
  return {
    name,
    url,
    drop: () => {
      let clean = false;
      try {
        clean = emptied(db);
      } catch {
        // dropped below, as it would have been anyway
      }
      if (clean) {
        spare.push({ name, db });
      } else {
        db.close();
        adminSync(dropSql(name));
      }
    },
  };
}

/** freshDatabase for synchronous callers (the store helpers). */
export function freshDatabaseSync(o: FreshDatabaseOptions = {}): SyncFreshDatabase {
  const name = uniqueName();
  adminSync(createSql(name, o.template ?? 'template0'));
  return {
    name,
    url: `${baseUrl()}/${name}`,
    drop: () => adminSync(dropSql(name)),
  };
}

/**
 * Statements the main thread waited for, blocked, on `db` during `fn`: what held the event loop
 * while PostgreSQL answered (none on SQLite, a local file).
 */
export async function blockingDuring(db: object, fn: () => Promise<unknown>): Promise<number> {
  const pgDb = db as Partial<PostgresDb>;
  const before = pgDb.blockingRoundTrips?.() ?? 0;
  await fn();
  return (pgDb.blockingRoundTrips?.() ?? 0) - before;
}
