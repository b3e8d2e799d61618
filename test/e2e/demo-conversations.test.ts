/**
 * `watchkeeper serve --demo` runs conversation memory offline too: the demo chat is summarised
 * and its memories extracted through the gateway, whose backend is the simulated model.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { openStores } from '../../src/db/index.js';
import { DEMO_CONVERSATION_ID } from '../../src/sim/demo-conversation.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
let serve: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(() => {
  serve?.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('demo mode: conversation memory', () => {
  it('summarises the demo chat and extracts its memories with the simulated gateway', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-demo-'));
    serve = spawn(process.execPath, [BIN, 'serve', '--demo'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dataDir,
        WATCHKEEPER_DATA_DIR: dataDir,
        WATCHKEEPER_SCHEDULE: 'off',
        WATCHKEEPER_PORT: '0',
        WATCHKEEPER_EMBEDDINGS: 'off',
      },
    });
    let log = '';
    serve.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    // Opened once serve has migrated the database (two migrators at once could race).
    for (let i = 0; i < 300 && !/watchkeeper serving/.test(log); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const stores = openStores(join(dataDir, 'watchkeeper.db'));
    try {
      const extracted = () =>
        stores.memories.list({ status: 'all' }).filter((m) => m.source === 'conversation');
      for (let i = 0; i < 400 && extracted().length === 0; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const summaries = stores.summaries.history(DEMO_CONVERSATION_ID);
      expect(summaries.some((s) => s.status === 'completed')).toBe(true);
      expect(extracted().length).toBeGreaterThan(0);
      expect(extracted()[0]!.sourceRef).toMatch(/^conversation demo-chat #\d+-\d+$/);
      const job = stores.gatewayJobs.list({ kind: 'summary' })[0]!;
      expect(job).toMatchObject({ backend: 'anthropic', outcome: 'ok' });
      expect(log).toMatch(/conversation summarised conversation=demo-chat/);
    } finally {
      stores.close();
    }
    serve.kill('SIGTERM');
    expect(await new Promise((r) => serve!.on('close', r))).toBe(0);
  }, 60_000);
});
