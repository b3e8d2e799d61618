/**
 * A notification target whose server echoes the request it got (a debugging endpoint, a proxy's
 * error page) quotes the `Authorization: Basic` header built from the URL's `user:password`.
 * Against a real `serve` process: that answer reaches the stored delivery, serve's log, the
 * Notifications page and the API with the credentials masked in every form. Needs dist/.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { readServeEndpoint } from '../../src/cli/serve-endpoint.js';
import { openStores } from '../../src/db/index.js';
import { httpReceiver, type HttpReceiver } from '../helpers/notify.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
const POLL_MS = 100;

let rx: HttpReceiver | undefined;
let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  await rx?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  rx = undefined;
  child = undefined;
  dataDir = undefined;
});

async function until<T>(probe: () => T | null | Promise<T | null>, tries: number): Promise<T> {
  for (let i = 0; i < tries; i += 1) {
    const v = await probe();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`nothing after ${tries} polls`);
}

describe('credentials a notification target echoes back', () => {
  it('appear in no form in the stored delivery, serve’s log, the Notifications page or the API', async () => {
    rx = await httpReceiver({ echoHeaders: true });
    rx.respond.push(500);
    dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-notify-secrets-'));
    // The password as written is percent-encoded; the header carries it decoded, in base64.
    const user = 'hook+user';
    const password = 'S3cr@t-Pass-9xq';
    const url = `json://hook%2Buser:S3cr%40t-Pass-9xq@127.0.0.1:${rx.port}/hook`;
    const basic = Buffer.from(`${user}:${password}`).toString('base64');
    const forms = [
      password,
      'S3cr%40t-Pass-9xq',
      basic,
      basic.replace(/=+$/, ''),
      Buffer.from(`${user}:${password}`).toString('base64url'),
    ];
    let log = '';
    child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dataDir,
        WATCHKEEPER_DATA_DIR: dataDir,
        WATCHKEEPER_SCHEDULE: 'off',
        WATCHKEEPER_PORT: '0',
        WATCHKEEPER_EMBEDDINGS: 'off',
        WATCHKEEPER_LOG_LEVEL: 'debug',
        WATCHKEEPER_NOTIFY_URLS: url,
        WATCHKEEPER_NOTIFY_RETRIES: '0',
      },
    });
    const closed = new Promise<number | null>((r) => child!.on('close', r));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));

    const endpoint = await until(() => readServeEndpoint(dataDir!), 300);
    const sent = await fetch(`${endpoint.url}/api/v1/notifications/test`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(sent.status).toBe(202);
    const api = await until(async () => {
      const text = await (await fetch(`${endpoint.url}/api/v1/notifications`)).text();
      return text.includes('"status":"failed"') ? text : null;
    }, 300);
    const page = await (await fetch(`${endpoint.url}/notifications`)).text();
    const stores = openStores(join(dataDir, 'watchkeeper.db'));
    const stored = (await stores.notifications.list()).flatMap((n) => n.deliveries);
    stores.close();
    child.kill('SIGTERM');
    expect(await closed).toBe(0);

    // The server did get the credentials, and did echo them.
    expect(rx.requests[0]!.headers.authorization).toBe(`Basic ${basic}`);
    expect(stored).toHaveLength(1);
    const error = stored[0]!.lastError ?? '';
    expect(error).toMatch(/^HTTP 500: upstream trouble 500 for POST \/\S+ .*Basic \*\*\*/i);
    expect(log).toContain('notification not delivered; giving up');
    expect(page).toContain('upstream trouble 500');
    expect(api).toContain('upstream trouble 500');
    for (const form of forms) {
      expect(error).not.toContain(form);
      expect(log).not.toContain(form);
      expect(page).not.toContain(form);
      expect(api).not.toContain(form);
    }
  });
});
