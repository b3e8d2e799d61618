/**
 * Vitest global setup: one real PostgreSQL cluster for the whole test run, in a fresh temporary
 * folder, listening on 127.0.0.1 and a free port, tuned for speed (no fsync), with a migrated
 * template database (TEMPLATE_DB) that test databases are copied from. Tests reach it
 * through `inject('postgresUrl')` (see helpers/postgres.ts); it is stopped and removed at the end.
 *
 * PostgreSQL refuses to run as root: as root, the folder is given to the `postgres` user and the
 * server runs as that user. Without PostgreSQL installed the run fails with how to install it,
 * unless WATCHKEEPER_TEST_POSTGRES=off, where the tests that need it are reported as skipped.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';
import type { TestProject } from 'vitest/node';

import { migrate } from '../src/db/migrate.js';
import { openPostgres } from '../src/db/postgres/open.js';
import { findBinDir, freePort, postgresUser, TEMPLATE_DB } from './helpers/pg-tools.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test server's base URL (`postgres://postgres@127.0.0.1:PORT`), null when off. */
    postgresUrl: string | null;
    /** Why there is no server (WATCHKEEPER_TEST_POSTGRES=off), null when there is one. */
    postgresOffReason: string | null;
  }
}

const run = promisify(execFile);

const INSTALL_HINT =
  'PostgreSQL is needed for the tests but initdb and pg_ctl were not found under ' +
  '/usr/lib/postgresql/<version>/bin or on PATH. Install it with ' +
  '`apt-get install -y --no-install-recommends postgresql` (Debian), or run without the ' +
  'PostgreSQL tests with WATCHKEEPER_TEST_POSTGRES=off (they are then reported as skipped).';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const off = process.env.WATCHKEEPER_TEST_POSTGRES === 'off';
  if (off) {
    project.provide('postgresUrl', null);
    project.provide(
      'postgresOffReason',
      'PostgreSQL tests are off (WATCHKEEPER_TEST_POSTGRES=off)',
    );
    return async () => {};
  }
  const bin = findBinDir();
  if (!bin) throw new Error(INSTALL_HINT);

  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    chownSync(dir, uid, gid);
  }
  // As root, every server command runs as the postgres user, from a folder it can read.
  const pgRun = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { cwd: dir })
      : run(join(bin, tool), args, { cwd: dir });

  let started = false;
  const stop = async () => {
    if (started) {
      await pgRun('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']).catch(() => {});
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await pgRun('initdb', [
      '-D',
      data,
      '--auth=trust',
      '--username=postgres',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
    // A port can be taken between choosing it and the server binding it: try a few.
    let port = 0;
    for (let attempt = 1; !started; attempt += 1) {
      port = await freePort();
      writeFileSync(
        join(data, 'postgresql.auto.conf'),
        [
          `listen_addresses = '127.0.0.1'`,
          `port = ${port}`,
          `unix_socket_directories = '${dir}'`,
          'max_connections = 200',
          'fsync = off',
          'synchronous_commit = off',
          'full_page_writes = off',
          // Test databases live for one test: vacuuming them is work nobody needs.
          'autovacuum = off',
          '',
        ].join('\n'),
        { mode: 0o600 },
      );
      if (asRoot) {
        const { uid, gid } = await postgresUser();
        chownSync(join(data, 'postgresql.auto.conf'), uid, gid);
      }
      try {
        await pgRun('pg_ctl', ['start', '-D', data, '-l', logFile, '-w', '-t', '60']);
        started = true;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
    const url = `postgres://postgres@127.0.0.1:${port}`;
    const client = new pg.Client({ connectionString: `${url}/postgres` });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${TEMPLATE_DB} TEMPLATE template0 IS_TEMPLATE true`);
      // Migrated once here, so that each test database is a copy rather than a migration.
      const template = openPostgres(`${url}/${TEMPLATE_DB}`);
      try {
        migrate(template);
      } finally {
        template.close();
      }
      // A template can only be copied once nobody is connected to it.
      await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1',
        [TEMPLATE_DB],
      );
      while (
        (
          await client.query<{ n: string }>(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1',
            [TEMPLATE_DB],
          )
        ).rows[0]!.n !== '0'
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await client.end();
    }
    project.provide('postgresUrl', url);
    project.provide('postgresOffReason', null);
  } catch (err) {
    const log = existsSync(logFile)
      ? await run('tail', ['-n', '20', logFile]).catch(() => null)
      : null;
    await stop();
    const detail = err instanceof Error ? err.message : String(err);
    throw new Error(
      `Could not start the test PostgreSQL server (${bin}): ${detail}` +
        (log?.stdout ? `\nserver log:\n${log.stdout}` : ''),
    );
  }
  return stop;
}
