/**
 * A PostgreSQL cluster of the test's own, for outage tests: a password is required (scram), and
 * the test stops and starts it at will without disturbing the run's shared server
 * (test/global-postgres.ts). As root, it runs as the `postgres` user, as the shared one does.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { findBinDir, freePort, postgresUser } from './pg-tools.js';

const run = promisify(execFile);

export const CLUSTER_USER = 'wk';
export const CLUSTER_PASSWORD = 'pg-secret-7f3a9c';

export interface PgCluster {
  port: number;
  /** postgres://wk:PASSWORD@127.0.0.1:PORT/NAME */
  url(database?: string, password?: string): string;
  createDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it (if running) and removes its folder. */
  destroy(): Promise<void>;
}

function binDir(): string {
  const bin = findBinDir();
  if (!bin) throw new Error('PostgreSQL (initdb, pg_ctl) is not installed');
  return bin;
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-pg-outage-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  let owner: { uid: number; gid: number } | null = null;
  if (asRoot) {
    owner = await postgresUser();
    chownSync(dir, owner.uid, owner.gid);
  }
  const pgRun = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { cwd: dir })
      : run(join(bin, tool), args, { cwd: dir });
  const pwFile = join(dir, 'pw');
  writeFileSync(pwFile, `${CLUSTER_PASSWORD}\n`, { mode: 0o600 });
  if (owner) chownSync(pwFile, owner.uid, owner.gid);
  await pgRun('initdb', [
    '-D',
    data,
    '--auth=scram-sha-256',
    `--username=${CLUSTER_USER}`,
    `--pwfile=${pwFile}`,
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
    '--no-instructions',
  ]);
  const port = await freePort();
  const conf = join(data, 'postgresql.auto.conf');
  writeFileSync(
    conf,
    [
      `listen_addresses = '127.0.0.1'`,
      `port = ${port}`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'synchronous_commit = off',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  if (owner) chownSync(conf, owner.uid, owner.gid);
  let running = false;
  const start = async () => {
    await pgRun('pg_ctl', ['start', '-D', data, '-l', logFile, '-w', '-t', '60']);
    running = true;
  };
  const stop = async () => {
    if (!running) return;
    await pgRun('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
    running = false;
  };
  await start();
  const url = (database = 'postgres', password = CLUSTER_PASSWORD) =>
    `postgres://${CLUSTER_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    createDatabase: async (name) => {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
    },
    stop,
    start,
    destroy: async () => {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
