/**
 * The Stop hook and a running serve: POST /api/v1/graph/index queues a transcript in serve's
 * process, but only one in a folder of transcripts (symlinks followed), refusing anything else
 * with one answer that never says whether the path exists; the hook finds serve through the
 * endpoint file of the data folder, has serve prove it wrote that file, and only then hands the
 * transcript over with serve's token; anything but serve's 202 (a refused token, no serve, a
 * listener that is not serve) leaves the hook to its own indexer.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { graphHookCommand, handToServe, hookRequest } from '../../src/cli/commands/graph-hook.js';
import { claimIndexerLock, releaseIndexerLock } from '../../src/cli/hook-requests.js';
import {
  ENDPOINT_FILE,
  endpointProof,
  loopbackUrl,
  newEndpointNonce,
  readServeEndpoint,
  removeServeEndpoint,
  writeServeEndpoint,
} from '../../src/cli/serve-endpoint.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { graphOf, indexQueueOf } from '../../src/web/graph-instance.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { cliIn } from '../helpers/cli.js';
import { fixtureCopy, SESSION } from '../helpers/graph.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

const NONCE = newEndpointNonce();
/** How long serve may answer here: the hook's 300 ms is not a test of this machine's speed. */
const LONG = 60_000;

let h: WebHarness;
let server: WebServer;
let copy: ReturnType<typeof fixtureCopy>;
let elsewhere: string;
beforeEach(async () => {
  copy = fixtureCopy();
  elsewhere = mkdtempSync(join(tmpdir(), 'watchkeeper-elsewhere-'));
  const env = { WATCHKEEPER_EMBEDDINGS: 'off', WATCHKEEPER_GRAPH_ROOTS: copy.dir };
  h = webHarness({ env, endpointProof: (c) => endpointProof(NONCE, c) });
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: h.dataDir,
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_PORT: '0',
  });
  server = await startWebServer(h.app, config.web);
});
afterEach(async () => {
  await server.close();
  await queue().close();
  h.close();
  rmSync(copy.dir, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

/** serve's graph and queue over the harness's store (the ones its routes use). */
const host = () => ({
  config: loadConfig({ WATCHKEEPER_DATA_DIR: h.dataDir, WATCHKEEPER_GRAPH_ROOTS: copy.dir }),
  stores: h.stores,
  knowledge: h.knowledge,
  clock: h.clock,
  log: silentLogger,
});
const queue = () => indexQueueOf(host());
const sessions = async () =>
  (await graphOf(host()).stores.sources.list({ limit: 10 })).map((s) => s.session);

async function post(body: unknown, token = TOKEN) {
  const res = await h.request('/api/v1/graph/index', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A private file outside every folder of transcripts, with what it must never give away. */
function secretFile(name: string): string {
  const path = join(elsewhere, name);
  writeFileSync(
    path,
    `${JSON.stringify({ type: 'user', sessionId: 'stolen', message: { role: 'user', content: 'We decided the root password is hunter2-zebra.' } })}\n`,
    { mode: 0o600 },
  );
  return path;
}

describe('POST /api/v1/graph/index', () => {
  it("queues the transcript and indexes it in serve's background", async () => {
    const r = await post({ transcript_path: copy.main, last_assistant_message: 'port 80' });
    expect(r).toEqual({ status: 202, json: { status: 'queued', transcript_path: copy.main } });
    await queue().idle();
    expect(await sessions()).toEqual([SESSION]);
  });

  it('refuses what is not a transcript on this machine, naming the field, and queues nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /transcript_path must be a non-empty string/],
      [{ transcript_path: 'relative/s.jsonl' }, /transcript_path must be an absolute path/],
      [{ transcript_path: '/etc/passwd' }, /transcript_path must name a transcript/],
      [{ transcript_path: join(copy.dir, 'gone.jsonl') }, /transcript_path must name a transcript/],
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
    expect(await sessions()).toEqual([]);
  });

  it('reads nothing outside the folders of transcripts, links followed, and never says whether a path exists', async () => {
    const secret = secretFile('private.jsonl');
    const log = secretFile('7.ndjson');
    const link = join(copy.dir, 'link-to-private.jsonl');
    symlinkSync(secret, link);
    const answers = [];
    for (const path of [secret, log, link, join(elsewhere, 'no-such-file.jsonl')]) {
      answers.push(await post({ transcript_path: path }));
    }
    for (const a of answers) expect(a.status).toBe(400);
    // The same answer for a file that exists and one that does not.
    expect(new Set(answers.map((a) => JSON.stringify(a.json))).size).toBe(1);
    expect(JSON.stringify(answers[0]!.json)).not.toContain(elsewhere);
    await queue().idle();
    expect(await sessions()).toEqual([]);
    const recalled = await h.request(
      `/api/v1/graph/remember?q=${encodeURIComponent('root password')}`,
      {
        headers: { Authorization: `Bearer ${TOKEN}` },
      },
    );
    expect(await recalled.text()).not.toContain('hunter2');
  });
});

/** A program listening where a dead serve listened: answers 202 to anything, records it all. */
async function impostor(proof: (challenge: string) => string) {
  const seen: { method: string; url: string; auth: string | null; body: string }[] = [];
  const srv = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        auth: req.headers.authorization ?? null,
        body,
      });
      const challenge = new URL(req.url ?? '/', 'http://x').searchParams.get('challenge');
      res.writeHead(req.method === 'GET' ? 200 : 202, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(challenge ? { proof: proof(challenge) } : { status: 'queued' }));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise((r) => srv.close(r)) };
}

describe('the Stop hook with serve running', () => {
  it('finds serve through the endpoint file and hands the transcript over', async () => {
    writeServeEndpoint(h.dataDir, {
      pid: process.pid,
      url: loopbackUrl(server.url),
      token: TOKEN,
      nonce: NONCE,
    });
    expect(statSync(join(h.dataDir, ENDPOINT_FILE)).mode & 0o777).toBe(0o600);
    // The hook's command, given time enough for serve on a loaded machine.
    let printed = '';
    const code = await graphHookCommand(
      ['stop'],
      {
        stdout: (t) => (printed += t),
        stderr: (t) => (printed += t),
        stdin: [
          Buffer.from(JSON.stringify({ hook_event_name: 'Stop', transcript_path: copy.main })),
        ],
        env: { WATCHKEEPER_DATA_DIR: h.dataDir },
        clock: h.clock,
        onSignal: () => () => {},
      },
      LONG,
    );
    expect({ code, printed }).toEqual({ code: 0, printed: '' });
    // Serve had it queued before the hook returned: the hook started no indexer of its own.
    await queue().idle();
    expect(await sessions()).toEqual([SESSION]);
    expect(existsSync(join(h.dataDir, 'graph-hook'))).toBe(false);
    removeServeEndpoint(h.dataDir);
    expect(existsSync(join(h.dataDir, ENDPOINT_FILE))).toBe(false);
  });

  it('falls back when serve refuses the token, answers with anything but 202, or is gone', async () => {
    const r = hookRequest({ transcript_path: copy.main })!;
    const url = loopbackUrl(server.url);
    const at = (token: string | null) => ({ pid: process.pid, url, token, nonce: NONCE });
    expect(await handToServe(at(TOKEN), r, LONG)).toBe(true);
    expect(await handToServe(at('wrong-token-0123456789'), r, LONG)).toBe(false);
    expect(await handToServe(at(null), r, LONG)).toBe(false);
    expect(await handToServe({ ...at(TOKEN), nonce: newEndpointNonce() }, r, LONG)).toBe(false);
    await server.close();
    expect(await handToServe(at(TOKEN), r, LONG)).toBe(false);
  });

  it('sends neither the token nor the transcript to a listener that cannot prove the nonce', async () => {
    // serve was killed with -9: its file names a pid that lives again and a port someone took.
    const other = await impostor(() => 'f'.repeat(64));
    try {
      const endpoint = { pid: process.pid, url: other.url, token: TOKEN, nonce: NONCE };
      writeServeEndpoint(h.dataDir, endpoint);
      expect(
        await handToServe(
          readServeEndpoint(h.dataDir)!,
          hookRequest({ transcript_path: copy.main })!,
        ),
      ).toBe(false);
      expect(other.seen.map((s) => s.method)).toEqual(['GET']);
      expect(JSON.stringify(other.seen)).not.toContain(TOKEN);
      expect(JSON.stringify(other.seen)).not.toContain(copy.main);
      // The hook run as Claude Code runs it: the same, and it still exits 0 quietly (an indexer
      // of this test holds the lock, so the hook starts none).
      expect(claimIndexerLock(h.dataDir)).toBe(true);
      const { run } = cliIn(h.dataDir, h.clock, { WATCHKEEPER_EMBEDDINGS: 'off' });
      const out = await run(
        ['graph', 'hook', 'stop'],
        JSON.stringify({ hook_event_name: 'Stop', transcript_path: copy.main }),
      );
      expect(out.code).toBe(0);
      expect(JSON.stringify(other.seen)).not.toContain(TOKEN);
      expect(other.seen.every((s) => s.method === 'GET')).toBe(true);
    } finally {
      releaseIndexerLock(h.dataDir);
      await other.close();
    }
  });

  it('ignores an endpoint file left by a serve that is gone, or one without a nonce', () => {
    writeServeEndpoint(h.dataDir, {
      pid: 2 ** 22 + 7,
      url: 'http://127.0.0.1:9',
      token: null,
      nonce: NONCE,
    });
    expect(readServeEndpoint(h.dataDir)).toBeNull();
    writeFileSync(
      join(h.dataDir, ENDPOINT_FILE),
      JSON.stringify({ pid: process.pid, url: 'http://127.0.0.1:9', token: TOKEN }),
    );
    expect(readServeEndpoint(h.dataDir)).toBeNull();
  });
});
