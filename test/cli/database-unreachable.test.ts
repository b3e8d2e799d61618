/**
 * Commands started while the fleet's PostgreSQL cannot be used: one clear line naming the
 * address without its password, exit code 1, never a hang (the connection attempt is bounded).
 * Wrong passwords and missing databases are told apart by PostgreSQL's own words.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cliIn } from '../helpers/cli.js';
import { CLUSTER_PASSWORD, type PgCluster, startPgCluster } from '../helpers/pg-cluster.js';
import { skipWithoutPostgres } from '../helpers/postgres.js';

skipWithoutPostgres();

const BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const SECRET = 'n0t-f0r-your-eyes';

let cluster: PgCluster;
let silent: Server;
let silentPort = 0;
const dirs: string[] = [];
beforeAll(async () => {
  cluster = await startPgCluster();
  await cluster.createDatabase('wk');
  // Accepts connections and never answers: only the connect timeout ends the wait.
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  silent?.close();
  await cluster?.destroy();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function run(url: string, argv: string[]) {
  const cli = cliIn(undefined, undefined, {
    WATCHKEEPER_DATABASE_URL: url,
    WATCHKEEPER_LOG_LEVEL: 'silent',
  });
  dirs.push(cli.dataDir);
  return cli.run(argv);
}

function expectOneLine(r: { code: number; stdout: string; stderr: string }, password: string) {
  expect(r.code).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^watchkeeper: /);
  expect(r.stderr).not.toContain('unexpected error');
  expect(r.stdout + r.stderr).not.toContain(password);
}

describe('starting against a PostgreSQL that cannot be used', () => {
  it('serve and other commands name the address, password hidden, when nothing listens', async () => {
    const url = `postgres://wk:${SECRET}@127.0.0.1:${cluster.port}/wk`;
    await cluster.stop();
    try {
      for (const argv of [['serve'], ['sessions', 'list'], ['memories', 'list']]) {
        const r = await run(url, argv);
        expectOneLine(r, SECRET);
        expect(r.stderr).toContain(
          `PostgreSQL at postgres://wk:***@127.0.0.1:${cluster.port}/wk is unreachable`,
        );
        expect(r.stderr).toContain('ECONNREFUSED');
      }
    } finally {
      await cluster.start();
    }
  });

  it('gives up on a server that never answers after the connect timeout', async () => {
    const r = await run(`postgres://wk:${SECRET}@127.0.0.1:${silentPort}/wk`, ['serve']);
    expectOneLine(r, SECRET);
    expect(r.stderr).toContain(`postgres://wk:***@127.0.0.1:${silentPort}/wk is unreachable`);
    expect(r.stderr).toMatch(/timeout/i);
  });

  it('says the password was refused, without showing it', async () => {
    const r = await run(cluster.url('wk', SECRET), ['serve']);
    expectOneLine(r, SECRET);
    expect(r.stderr).toContain(`postgres://wk:***@127.0.0.1:${cluster.port}/wk`);
    expect(r.stderr).toContain('password authentication failed for user "wk"');
  });

  it('says the database does not exist', async () => {
    const r = await run(cluster.url('nowhere'), ['sessions', 'list']);
    expectOneLine(r, CLUSTER_PASSWORD);
    expect(r.stderr).toContain(`postgres://wk:***@127.0.0.1:${cluster.port}/nowhere`);
    expect(r.stderr).toContain('database "nowhere" does not exist');
  });

  it('a real serve process exits with code 1 and the one line', () => {
    if (!existsSync(DIST)) throw new Error('dist/ is missing: build with `npm run build`');
    const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-cli-pg-'));
    dirs.push(dataDir);
    const r = spawnSync(process.execPath, [BIN, 'serve'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        WATCHKEEPER_DATA_DIR: dataDir,
        WATCHKEEPER_DATABASE_URL: `postgres://wk:${SECRET}@127.0.0.1:${silentPort}/wk`,
        WATCHKEEPER_LOG_LEVEL: 'silent',
      },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(r.signal).toBeNull(); // ended on its own, not by the timeout
    expectOneLine({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, SECRET);
    expect(r.stderr).toContain(`postgres://wk:***@127.0.0.1:${silentPort}/wk is unreachable`);
  });
});
