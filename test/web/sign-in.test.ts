/**
 * Sign-in and sign-out: failed attempts are throttled per client socket address (or, behind a
 * configured trusted proxy, the client that proxy names), never per a header the client writes;
 * another client's correct credential is never locked out; the throttle's memory is bounded; a
 * signed-out cookie is refused when replayed, even after a restart; `next` stays on this site.
 */
import { randomBytes } from 'node:crypto';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { SessionFeed } from '../../src/runner/live-feed.js';
import { createApp } from '../../src/web/app.js';
import { addressBucket } from '../../src/web/client-address.js';
import { createLoginThrottle } from '../../src/web/login-throttle.js';
import { safeNext } from '../../src/web/sign-in.js';
import { fakeRunner, TOKEN, webHarness, type WebHarness } from '../helpers/web.js';
import { offConversations } from '../helpers/gateway.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded', Host: 'localhost' };

let h: WebHarness;
beforeEach(() => {
  h = webHarness();
});
afterEach(() => h.close());

/** A sign-in as @hono/node-server would pass it: from `address`, with extra headers. */
function signIn(
  app: { request: WebHarness['app']['request'] },
  token: string,
  address: string,
  headers: Record<string, string> = {},
  next = '/',
) {
  return Promise.resolve(
    app.request(
      'http://localhost/login',
      {
        method: 'POST',
        body: new URLSearchParams({ token, next }),
        headers: { ...FORM, ...headers },
      },
      { incoming: { socket: { remoteAddress: address } } },
    ),
  );
}

const WRONG = 'wrong-token-wrong-token';

describe('the sign-in throttle', () => {
  it('counts by socket address: a rotated X-Forwarded-For buys no extra attempts', async () => {
    for (let i = 0; i < 10; i += 1) {
      const res = await signIn(h.app, WRONG, '203.0.113.7', { 'X-Forwarded-For': `10.9.9.${i}` });
      expect(res.status).toBe(401);
    }
    const eleventh = await signIn(h.app, WRONG, '203.0.113.7', { 'X-Forwarded-For': '10.9.9.99' });
    expect(eleventh.status).toBe(429);
    expect(await eleventh.text()).toContain('Too many failed attempts');
    // Locked out means the guess is not even checked: the right token from there waits too.
    expect((await signIn(h.app, TOKEN, '203.0.113.7')).status).toBe(429);
    // A minute later the client may try again.
    h.clock.advance(60_000);
    expect((await signIn(h.app, TOKEN, '203.0.113.7')).status).toBe(303);
  });

  it('never locks out a correct credential from another client', async () => {
    for (let i = 0; i < 12; i += 1) await signIn(h.app, WRONG, '198.51.100.66');
    expect((await signIn(h.app, WRONG, '198.51.100.66')).status).toBe(429);
    const operator = await signIn(h.app, TOKEN, '192.0.2.10');
    expect(operator.status).toBe(303);
    expect(operator.headers.get('Set-Cookie')).toMatch(/^wk_session=/);
    // An IPv4-mapped spelling of the locked address is the same client.
    expect((await signIn(h.app, WRONG, '::ffff:198.51.100.66')).status).toBe(429);
  });

  it('behind a trusted proxy, counts by the client the proxy names (rightmost untrusted hop)', async () => {
    h.close();
    h = webHarness({ env: { WATCHKEEPER_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1' } });
    const viaProxy = (spoofed: string, client: string) =>
      signIn(h.app, WRONG, '10.0.0.5', {
        'X-Forwarded-For': `${spoofed}, ${client}, 192.0.2.1`,
      });
    for (let i = 0; i < 10; i += 1) {
      expect((await viaProxy(`1.1.1.${i}`, '203.0.113.50')).status).toBe(401);
    }
    expect((await viaProxy('1.1.1.200', '203.0.113.50')).status).toBe(429);
    // Another client behind the same proxy is not affected.
    const other = await signIn(h.app, TOKEN, '10.0.0.5', {
      'X-Forwarded-For': '203.0.113.51, 192.0.2.1',
    });
    expect(other.status).toBe(303);
    // A proxy that is not trusted cannot name a client: its own address is the key.
    const untrusted = await signIn(h.app, TOKEN, '198.51.100.1', {
      'X-Forwarded-For': '203.0.113.50',
    });
    expect(untrusted.status).toBe(303);
  });

  it('refuses a trusted-proxy list that is not addresses, naming the variable', () => {
    expect(() => loadConfig({ WATCHKEEPER_TRUSTED_PROXIES: '10.0.0.1, proxy.local' })).toThrow(
      'WATCHKEEPER_TRUSTED_PROXIES="10.0.0.1, proxy.local": "proxy.local" is not an IP address',
    );
    expect(() => loadConfig({ CLAUDEOPS_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(
      /CLAUDEOPS_TRUSTED_PROXIES=.*"10.0.0.0\/33" is not an IP address or a CIDR range/,
    );
    expect(loadConfig({ CLAUDEOPS_TRUSTED_PROXIES: '::1, fd00::/8' }).web.trustedProxies).toEqual([
      '::1',
      'fd00::/8',
    ]);
  });

  it('holds a bounded number of clients, however many addresses fail', () => {
    const throttle = createLoginThrottle({ maxFailures: 10, windowMs: 60_000, maxEntries: 1000 });
    let now = 0;
    for (let i = 0; i < 100_000; i += 1) {
      throttle.failed(`addr-${i}`, now);
      now += 1;
    }
    expect(throttle.size).toBeLessThanOrEqual(1000);
    // Expired records go: one failure after a quiet minute leaves only that one.
    throttle.failed('late', now + 60_000);
    expect(throttle.size).toBe(1);
  });

  it('by default tracks at most 10,000 clients: 20,000 failing addresses leave 10,000', async () => {
    const throttle = createLoginThrottle();
    for (let i = 0; i < 20_000; i += 1) throttle.failed(`198.18.${i >> 8}.${i & 255}`, 0);
    expect(throttle.size).toBe(10_000);
  });

  it('puts a whole IPv6 /64 in one bucket', () => {
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
  });
});

describe('sign-out', () => {
  it('revokes the session server-side: a replayed cookie is refused, even after a restart', async () => {
    const secret = randomBytes(32);
    const config = loadConfig({ WATCHKEEPER_DATA_DIR: h.dataDir, WATCHKEEPER_AUTH_TOKEN: TOKEN });
    const appOver = () =>
      createApp({
        config,
        stores: h.stores,
        knowledge: h.knowledge,
        ...offConversations(h),
        feed: new SessionFeed(),
        runner: fakeRunner(),
        clock: h.clock,
        log: silentLogger,
        demo: false,
        secret,
      });
    const app = appOver();
    const login = await signIn(app, TOKEN, '192.0.2.10');
    const cookie = (login.headers.get('Set-Cookie') ?? '').split(';')[0]!;
    const get = (a: typeof app, path: string) =>
      Promise.resolve(
        a.request(`http://localhost${path}`, { headers: { Host: 'localhost', Cookie: cookie } }),
      );
    const page = await get(app, '/memories');
    expect(page.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;

    // A second signed-in browser tab, unrelated: it stays signed in.
    const other = await signIn(app, TOKEN, '192.0.2.10');
    const otherCookie = (other.headers.get('Set-Cookie') ?? '').split(';')[0]!;

    const out = await app.request('http://localhost/logout', {
      method: 'POST',
      body: new URLSearchParams({ _csrf: csrf }),
      headers: { ...FORM, Cookie: cookie, Origin: 'http://localhost' },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('Location')).toBe('/login');

    const replay = await get(app, '/memories');
    expect(replay.status).toBe(303);
    expect(replay.headers.get('Location')).toBe('/login?next=%2Fmemories');
    const api = await get(app, '/api/v1/memories');
    expect(api.status).toBe(401);

    const restarted = appOver();
    expect((await get(restarted, '/memories')).status).toBe(303);
    const otherTab = await restarted.request('http://localhost/memories', {
      headers: { Host: 'localhost', Cookie: otherCookie },
    });
    expect(otherTab.status).toBe(200);
  });
});

describe('the page to return to after sign-in', () => {
  it('is a plain path on this site, or /', () => {
    for (const next of ['/memories', '/sessions/12?page=2', '/events?level=critical#top']) {
      expect(safeNext(next)).toBe(next);
    }
    for (const next of [
      '/\t/evil.example',
      '/\n/evil.example',
      '/\r/evil.example',
      '//evil.example',
      '/\\evil.example',
      '/x\\..\\..\\evil',
      '/ /evil.example',
      '/\u0000/evil.example',
      'https://evil.example/',
      'evil.example',
      '',
      undefined,
    ]) {
      expect([next, safeNext(next)]).toEqual([next, '/']);
    }
  });

  it('sends a sign-in with a tab-smuggled next to /, and the form never offers it', async () => {
    const res = await signIn(h.app, TOKEN, '192.0.2.10', {}, '/\t/evil.example');
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/');
    const page = await h.request(`/login?next=${encodeURIComponent('/\t/evil.example')}`);
    expect(await page.text()).toContain('name="next" value="/"');
  });
});
