/**
 * `npm start` under a process manager: SIGTERM goes to npm's pid, and must reach the server
 * (npm runs the script through sh; without `exec`, sh dies and node is left serving). Run
 * through the real npm on the package's own script. Needs dist/.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { logLines } from '../helpers/log-lines.js';
import { waitFor } from '../helpers/wait.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
const left: number[] = [];
afterAll(() => {
  for (const pid of left.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm start', () => {
  it('SIGTERM to npm stops the server: the port closes and node is gone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-npm-start-'));
    dirs.push(dataDir);
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dataDir,
        npm_config_update_notifier: 'false',
        WATCHKEEPER_DATA_DIR: dataDir,
        WATCHKEEPER_PORT: '0',
        WATCHKEEPER_SCHEDULE: 'off',
        WATCHKEEPER_EMBEDDINGS: 'off',
        WATCHKEEPER_LOG_FORMAT: 'json',
      },
    });
    const exited = new Promise<void>((r) => npm.once('close', () => r()));
    let log = '';
    npm.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const serving = () => logLines(log).find((l) => l.msg === 'watchkeeper serving');
    await waitFor('npm start to serve', () => serving() !== undefined);
    const line = serving();
    expect(line, log).toBeDefined();
    const server = line!.pid as number;
    left.push(server);
    const port = Number(new URL(line!.dashboard as string).port);
    expect(await accepts(port)).toBe(true);

    npm.kill('SIGTERM');
    await exited;
    await waitFor('the server to exit', () => !alive(server));
    expect(alive(server)).toBe(false);
    expect(await accepts(port)).toBe(false);
  });
});
