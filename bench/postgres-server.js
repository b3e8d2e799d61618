/**
 * A PostgreSQL server for the benchmarks that need one: WATCHKEEPER_BENCH_POSTGRES_URL
 * (postgres://user@host:port, a server the bench may create databases on) when set, else a
 * throwaway cluster in a temporary folder on 127.0.0.1 and a free port (as the `postgres` user
 * when run as root: PostgreSQL refuses to run as root), stopped and removed by stop().
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';

import { freePort } from './wrk.js';

const run = promisify(execFile);

function binDir() {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const v = readdirSync(root)
      .filter((d) => existsSync(join(root, d, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))[0];
    if (v) return join(root, v, 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'initdb'))) return dir;
  }
  throw new Error(
    'PostgreSQL is needed (initdb, pg_ctl): apt-get install -y --no-install-recommends postgresql, or set WATCHKEEPER_BENCH_POSTGRES_URL',
  );
}

/** Starts (or names) the server; `database(name)` makes a fresh database and returns its URL. */
export async function startPostgres() {
  let base = process.env.WATCHKEEPER_BENCH_POSTGRES_URL ?? null;
  let stopServer = async () => {};
  if (!base) {
    const bin = binDir();
    const asRoot = process.getuid?.() === 0;
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-pg-'));
    const data = join(dir, 'data');
    let owner = null;
    if (asRoot) {
      owner = {
        uid: Number((await run('id', ['-u', 'postgres'])).stdout),
        gid: Number((await run('id', ['-g', 'postgres'])).stdout),
      };
      chownSync(dir, owner.uid, owner.gid);
    }
    const tool = (name, args) =>
      asRoot
        ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args], { cwd: dir })
        : run(join(bin, name), args, { cwd: dir });
    await tool('initdb', [
      '-D',
      data,
      '--auth=trust',
      '--username=postgres',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const port = await freePort();
    const conf = join(data, 'postgresql.auto.conf');
    writeFileSync(
      conf,
      `listen_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = '${dir}'\n`,
    );
    if (owner) chownSync(conf, owner.uid, owner.gid);
    await tool('pg_ctl', ['start', '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60']);
    base = `postgres://postgres@127.0.0.1:${port}`;
    stopServer = async () => {
      await tool('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const on = async (database, sql) => {
    const client = new pg.Client({ connectionString: `${base}/${database}` });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const admin = (sql) => on('postgres', sql);
  const made = [];
  return {
    base,
    /** A fresh database, with these extensions created in it. */
    async database(name, extensions = []) {
      await admin(`DROP DATABASE IF EXISTS "${name}"`);
      await admin(`CREATE DATABASE "${name}"`);
      made.push(name);
      for (const e of extensions) await on(name, `CREATE EXTENSION "${e}"`);
      return `${base}/${name}`;
    },
    /** Whether the server can install this extension (pgvector: `vector`). */
    async hasExtension(name) {
      const r = await admin(
        `SELECT 1 FROM pg_available_extensions WHERE name = '${name.replace(/'/g, "''")}'`,
      );
      return r.rowCount === 1;
    },
    async stop() {
      for (const name of made) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await stopServer();
    },
  };
}
