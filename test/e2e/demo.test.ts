/** `watchkeeper serve --demo` (npm run demo): the real CLI against the simulated model, end to end. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { demoEnv } from '../../src/cli/commands/serve.js';
import { openStores } from '../../src/db/index.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
let serve: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(() => {
  serve?.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('demo mode', () => {
  it('runs every minute in ./demo-data unless told otherwise', () => {
    expect(demoEnv({ ANTHROPIC_API_KEY: 'k', PATH: '/bin' })).toEqual({
      PATH: '/bin',
      WATCHKEEPER_DATA_DIR: './demo-data',
      WATCHKEEPER_SCHEDULE: '* * * * *',
    });
    expect(demoEnv({ WATCHKEEPER_SCHEDULE: 'off' }).WATCHKEEPER_SCHEDULE).toBe('off');
  });

  it('shows a whole chain at start: sessions, events and memories, labelled simulated', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-demo-'));
    serve = spawn(process.execPath, [BIN, 'serve', '--demo'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dataDir,
        WATCHKEEPER_DATA_DIR: dataDir,
        // Only the start-up chain: the demo's every-minute schedule would queue a second chain
        // whenever a minute boundary fell inside the first, and its sessions would join the rows.
        WATCHKEEPER_SCHEDULE: 'off',
        WATCHKEEPER_PORT: '0',
        ANTHROPIC_API_KEY: 'must-not-be-used',
      },
    });
    let log = '';
    serve.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    for (let i = 0; i < 600 && !/session ended session=3 /.test(log); i += 1)
      await new Promise((r) => setTimeout(r, 100));
    expect(log).toContain('DEMO MODE: sessions run against a SIMULATED model');
    expect(log).toMatch(/session ended session=3 status=completed/);
    serve.kill('SIGTERM');
    expect(await new Promise((r) => serve!.on('close', r))).toBe(0);

    const stores = openStores(join(dataDir, 'watchkeeper.db'));
    try {
      const sessions = stores.sessions.list();
      expect(sessions.map((s) => [s.tier, s.status, s.simulated])).toEqual([
        [3, 'completed', true],
        [2, 'escalated', true],
        [1, 'escalated', true],
      ]);
      expect(stores.events.list({ source: 'agent' }).length).toBeGreaterThanOrEqual(4);
      // The sessions' own memories (the demo chat's extractions have their own scope).
      expect(stores.memories.count({ scopes: ['ops'] })).toBe(3);
      expect(stores.cooldowns.since(0)).toMatchObject([
        { service: 'jellyfin', actionType: 'restart', success: true },
      ]);
    } finally {
      stores.close();
    }
  });
});
