/**
 * Request bodies are limited per route while they are read: an oversized sign-in (before any
 * credential is checked) is refused with 413 whether it declares its length or arrives chunked,
 * and a streamed body is cut at the limit instead of being read to the end.
 */
import { request as httpRequest } from 'node:http';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'Content-Type': 'application/json' };
const MB = 1024 * 1024;

let h: WebHarness;
beforeEach(() => {
  h = webHarness();
});
afterEach(() => h.close());

/** A body of `total` bytes in 64 KB chunks that counts how much of it was pulled. */
function countingStream(total: number, fill = 'a') {
  const chunk = new TextEncoder().encode(fill.repeat(64 * 1024));
  const counter = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.pulled >= total) {
        controller.close();
        return;
      }
      counter.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, counter };
}

describe('body limits, in-process', () => {
  it('refuses an oversized sign-in by its Content-Length, unread, with a form-friendly page', async () => {
    const res = await h.request('/login', {
      method: 'POST',
      body: new URLSearchParams({ token: TOKEN, pad: 'x'.repeat(8 * 1024) }),
      headers: FORM,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('Content-Type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('over the limit of 4096 bytes for POST /login');
    expect(res.headers.get('Set-Cookie')).toBeNull();
  });

  it('cuts a chunked sign-in body at the limit instead of reading 64 MB of it', async () => {
    const { stream, counter } = countingStream(64 * MB);
    const res = await h.request('/login', {
      method: 'POST',
      body: stream,
      headers: FORM,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    // Read up to the first chunk past 4 KB (and what the stream queued ahead), not to the end.
    expect(counter.pulled).toBeLessThan(1 * MB);
  });

  it('answers the API in its JSON error shape, and counts bytes a lying Content-Length hides', async () => {
    const big = JSON.stringify({ category: 'timing', observation: 'x'.repeat(40 * 1024) });
    const res = await h.request('/api/v1/memories', {
      method: 'POST',
      body: big,
      headers: { ...JSON_TYPE, Authorization: `Bearer ${TOKEN}`, 'Content-Length': '10' },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: {
        code: 'too_large',
        message: 'the request body is over the limit of 32768 bytes for POST /api/v1/memories',
      },
    });
    expect(await h.stores.memories.count({ status: 'all' })).toBe(0);
  });

  it('sizes limits per route: a long valid prompt and 10,000 bulk ids still fit', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const prompt = 'é'.repeat(20_000); // the longest prompt, two bytes a character
    const run = await h.request('/api/v1/sessions', {
      method: 'POST',
      body: JSON.stringify({ prompt }),
      headers: { ...JSON_TYPE, ...auth },
    });
    expect(run.status).toBe(202);
    const ids = Array.from({ length: 10_000 }, (_, i) => 1_000_000 + i);
    const bulk = await h.request('/api/v1/memories/bulk', {
      method: 'DELETE',
      body: JSON.stringify({ ids }),
      headers: { ...JSON_TYPE, ...auth },
    });
    expect(bulk.status).toBe(200);
    // A small route stays small: stopping a session takes no body worth 32 KB.
    const stop = await h.request('/api/v1/sessions/1/stop', {
      method: 'POST',
      body: JSON.stringify({ pad: 'x'.repeat(32 * 1024) }),
      headers: { ...JSON_TYPE, ...auth },
    });
    expect(stop.status).toBe(413);
  });
});

describe('body limits behind @hono/node-server', () => {
  let web: WebServer;
  beforeEach(async () => {
    // The harness's app, on a real socket (any free port on loopback).
    const web0 = loadConfig({ WATCHKEEPER_AUTH_TOKEN: TOKEN, WATCHKEEPER_PORT: '0' }).web;
    web = await startWebServer(h.app, web0);
  });
  afterEach(() => web.close());

  /** POSTs to /login; `chunked` streams `total` bytes without a Content-Length. */
  function postLogin(opts: { total: number; chunked: boolean }) {
    const url = new URL('/login', web.url);
    return new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = httpRequest(url, {
        method: 'POST',
        headers: {
          ...FORM,
          ...(opts.chunked ? {} : { 'Content-Length': String(opts.total) }),
        },
      });
      req.on('response', (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body, sent });
        });
      });
      req.on('error', (err) => (answered ? undefined : reject(err)));
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (!answered && sent < opts.total) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!answered) req.end();
      };
      pump();
    });
  }

  it('still reads a sign-in that fits, from a real socket, and counts failures by that socket', async () => {
    let attempt = 0;
    const post = (token: string) =>
      fetch(new URL('/login', web.url), {
        method: 'POST',
        body: new URLSearchParams({ token, next: '/events' }),
        // A new forwarded address each time: not trusted, so it buys nothing.
        headers: { ...FORM, 'X-Forwarded-For': `10.1.1.${(attempt += 1)}` },
        redirect: 'manual',
      });
    const ok = await post(TOKEN);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('Location')).toBe('/events');
    for (let i = 0; i < 10; i += 1)
      expect((await post('wrong-token-wrong-token')).status).toBe(401);
    expect((await post('wrong-token-wrong-token')).status).toBe(429);
  });

  it('refuses a 600 MB sign-in with a Content-Length before reading it', async () => {
    const res = await postLogin({ total: 600 * MB, chunked: false });
    expect(res.status).toBe(413);
    expect(res.body).toContain('over the limit of 4096 bytes');
    expect(res.sent).toBeLessThan(100 * MB);
  });

  it('refuses a chunked 600 MB sign-in once it passes the limit, and keeps serving', async () => {
    const res = await postLogin({ total: 600 * MB, chunked: true });
    expect(res.status).toBe(413);
    expect(res.body).toContain('over the limit of 4096 bytes');
    // The server answered long before the client could push the whole body.
    expect(res.sent).toBeLessThan(100 * MB);
    const health = await fetch(new URL('/api/v1/health', web.url));
    expect(health.status).toBe(200);
  });
});
