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

/** CREATE DATABASE; copied file by file where the server can (PostgreSQL 15+): faster without fsync. */
function createSql(name: string, template: string): string {
  const fileCopy = (inject('postgresVersionNum') ?? 0) >= 150000;
  return (
    `CREATE DATABASE ${quote(name)} TEMPLATE ${quote(template)}` +
    (fileCopy ? ' STRATEGY FILE_COPY' : '')
  );
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

/** A new database with every migration applied: a copy of the run's migrated template. */
export function migratedDatabaseSync(): SyncFreshDatabase {
  return freshDatabaseSync({ template: TEMPLATE_DB });
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
