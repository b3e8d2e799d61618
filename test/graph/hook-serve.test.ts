/**
 * The Stop hook and a running serve: POST /api/v1/graph/index queues a transcript in serve's
 * process (bad input refused, naming the field), the hook finds serve through the endpoint file
 * of the data folder and hands the transcript over with serve's token, and anything but serve's
 * 202 (a refused token, no serve) leaves the hook to start its own indexer.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { handToServe, hookRequest } from '../../src/cli/commands/graph-hook.js';
import {
  ENDPOINT_FILE,
  loopbackUrl,
  readServeEndpoint,
  removeServeEndpoint,
  writeServeEndpoint,
} from '../../src/cli/serve-endpoint.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { graphOf, indexQueueOf } from '../../src/web/graph-instance.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { cliIn } from '../helpers/cli.js';
import { fixtureCopy, SESSION } from '../helpers/graph.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let server: WebServer;
let copy: ReturnType<typeof fixtureCopy>;
beforeEach(async () => {
  h = webHarness({ env: { WATCHKEEPER_EMBEDDINGS: 'off' } });
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: h.dataDir,
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_PORT: '0',
  });
  server = await startWebServer(h.app, config.web);
  copy = fixtureCopy();
});
afterEach(async () => {
  await server.close();
  await queue().close();
  h.close();
  rmSync(copy.dir, { recursive: true, force: true });
});

/** serve's graph and queue over the harness's store (the ones its routes use). */
const host = () => ({
  config: loadConfig({ WATCHKEEPER_DATA_DIR: h.dataDir }),
  stores: h.stores,
  knowledge: h.knowledge,
  clock: h.clock,
  log: silentLogger,
});
const queue = () => indexQueueOf(host());
const sessions = () =>
  graphOf(host())
    .stores.sources.list({ limit: 10 })
    .map((s) => s.session);

async function post(body: unknown, token = TOKEN) {
  const res = await h.request('/api/v1/graph/index', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('POST /api/v1/graph/index', () => {
  it("queues the transcript and indexes it in serve's background", async () => {
    const r = await post({ transcript_path: copy.main, last_assistant_message: 'port 80' });
    expect(r).toEqual({ status: 202, json: { status: 'queued', transcript_path: copy.main } });
    await queue().idle();
    expect(sessions()).toEqual([SESSION]);
  });

  it('refuses what is not a transcript on this machine, naming the field, and queues nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /transcript_path must be a non-empty string/],
      [{ transcript_path: 'relative/s.jsonl' }, /transcript_path must be an absolute path/],
      [{ transcript_path: '/etc/passwd' }, /transcript_path must name a transcript/],
      [{ transcript_path: join(copy.dir, 'gone.jsonl') }, /transcript_path names no readable file/],
      [
        { transcript_path: copy.main, last_assistant_message: 42 },
        /last_assistant_message must be a string/,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.json)).toMatch(message);
    }
    expect(queue().waiting).toBe(0);
    await queue().idle();
    expect(sessions()).toEqual([]);
  });
});

describe('the Stop hook with serve running', () => {
  it('finds serve through the endpoint file and hands the transcript over', async () => {
    writeServeEndpoint(h.dataDir, { pid: process.pid, url: loopbackUrl(server.url), token: TOKEN });
    expect(statSync(join(h.dataDir, ENDPOINT_FILE)).mode & 0o777).toBe(0o600);
    const { run } = cliIn(h.dataDir, h.clock, { WATCHKEEPER_EMBEDDINGS: 'off' });
    const out = await run(
      ['graph', 'hook', 'stop'],
      JSON.stringify({ hook_event_name: 'Stop', transcript_path: copy.main }),
    );
    expect(out).toEqual({ code: 0, stdout: '', stderr: '' });
    // Serve had it queued before the hook returned: the hook started no indexer of its own.
    await queue().idle();
    expect(sessions()).toEqual([SESSION]);
    expect(existsSync(join(h.dataDir, 'graph-hook.log'))).toBe(false);
    removeServeEndpoint(h.dataDir);
    expect(existsSync(join(h.dataDir, ENDPOINT_FILE))).toBe(false);
  });

  it('falls back when serve refuses the token, answers with anything but 202, or is gone', async () => {
    const r = hookRequest({ transcript_path: copy.main })!;
    const url = loopbackUrl(server.url);
    expect(await handToServe({ pid: process.pid, url, token: TOKEN }, r)).toBe(true);
    expect(await handToServe({ pid: process.pid, url, token: 'wrong-token-0123456789' }, r)).toBe(
      false,
    );
    expect(await handToServe({ pid: process.pid, url, token: null }, r)).toBe(false);
    await server.close();
    expect(await handToServe({ pid: process.pid, url, token: TOKEN }, r)).toBe(false);
  });

  it('ignores an endpoint file left by a serve that is gone', () => {
    writeServeEndpoint(h.dataDir, { pid: 2 ** 22 + 7, url: 'http://127.0.0.1:9', token: null });
    expect(readServeEndpoint(h.dataDir)).toBeNull();
  });
});
