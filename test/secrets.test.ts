/**
 * The credentials of every configured URL, in every form a text may quote them (plain,
 * percent-encoded or decoded, base64 and base64url of `user:password`), masked by the logger of
 * every long-running command, and on the Notifications page and in the API even in a row an
 * older version stored unmasked.
 */
import { describe, expect, it } from 'vitest';

import { cliLogger } from '../src/cli/logger.js';
import { loadConfig } from '../src/config/index.js';
import { configSecrets, redact } from '../src/secrets.js';
import { fakeClock } from './helpers/clock.js';
import { webHarness } from './helpers/web.js';

/** Every form in which `user:password` (as decoded) may be quoted. */
function formsOf(user: string, password: string, written: string): string[] {
  const pair = `${user}:${password}`;
  const b64 = Buffer.from(pair).toString('base64');
  return [
    password,
    written,
    encodeURIComponent(password),
    b64,
    b64.replace(/=+$/, ''),
    Buffer.from(pair).toString('base64url'),
  ];
}

const ENV = {
  WATCHKEEPER_EMBEDDINGS: 'off',
  WATCHKEEPER_DATABASE_URL: 'postgres://wk:db%2Fpass~77@db.example.com/watchkeeper',
  WATCHKEEPER_GATEWAY: 'openai',
  WATCHKEEPER_GATEWAY_URL: 'https://gw:gw%3Fsecret-41@llm.example.com/v1',
  WATCHKEEPER_NOTIFY_URLS: 'json://bot:hook%40pass-93@hooks.example.com/in',
  CLAUDEOPS_APPRISE_URLS: 'pover://userkey123@apptoken456',
};
const SECRETS = [
  ...formsOf('wk', 'db/pass~77', 'db%2Fpass~77'),
  ...formsOf('gw', 'gw?secret-41', 'gw%3Fsecret-41'),
  ...formsOf('bot', 'hook@pass-93', 'hook%40pass-93'),
  // A user without a password in a notification URL is a token.
  'userkey123',
  Buffer.from('userkey123:').toString('base64'),
];

describe('the configuration’s credentials', () => {
  it('are collected in every form from every URL with userinfo, and masked wherever quoted', () => {
    const secrets = configSecrets(loadConfig(ENV));
    for (const s of SECRETS) {
      expect(redact(`before ${s} after`, secrets)).toBe('before *** after');
    }
    // A user name alone is no secret where it is a name (the database's `wk`, postgres users).
    const named = configSecrets(
      loadConfig({ WATCHKEEPER_DATABASE_URL: 'postgres://watchkeeper@db.example.com/wk' }),
    );
    expect(named).toEqual([]);
  });

  it('never reach a log line, whatever field and depth quotes them', () => {
    let out = '';
    const io = {
      stderr: (t: string) => (out += t),
      clock: fakeClock(),
      stderrIsTty: false,
    } as unknown as Parameters<typeof cliLogger>[1];
    const log = cliLogger(loadConfig(ENV), io);
    for (const s of SECRETS) {
      log.warn(`the server answered: Authorization: Basic ${s}`, {
        deep: { deeper: { deepest: { still: { answer: `x ${s} y` } } } },
      });
    }
    expect(out).toContain('the server answered: Authorization: Basic ***');
    for (const s of SECRETS) expect(out).not.toContain(s);
  });

  it('are masked on the Notifications page and in the API, in a delivery stored unmasked', async () => {
    const h = webHarness({ env: ENV });
    try {
      const store = h.stores.notifications;
      const at = h.clock.now();
      const { id } = store.record(
        {
          kind: 'test',
          level: 'info',
          service: null,
          title: 'Test notification',
          body: 'a test',
          dedupKey: 'test|1',
          sessionId: null,
          at,
        },
        null,
      );
      store.fanOut(
        id,
        [{ targetKey: 'json://***@hooks.example.com/***', status: 'pending', lastError: null }],
        at,
      );
      const delivery = (await store.list())[0]!.deliveries[0]!;
      expect(store.claim(delivery.id, at, at + 1000, at)).toBe(true);
      const echoed = `HTTP 500: ${SECRETS.map((s) => `authorization: Basic ${s}`).join(' ')}`;
      store.recordAttempt(delivery.id, {
        status: 'failed',
        lastError: echoed,
        nextAttemptAt: null,
        at,
        claimedUntil: at + 1000,
      });
      const auth = await h.login();
      const page = await (
        await h.request('/notifications', { headers: { Cookie: auth.cookie } })
      ).text();
      const api = await (
        await h.request('/api/v1/notifications', { headers: { Cookie: auth.cookie } })
      ).text();
      expect(page).toContain('authorization: Basic ***');
      expect(api).toContain('authorization: Basic ***');
      for (const s of SECRETS) {
        expect(page).not.toContain(s);
        expect(api).not.toContain(s);
      }
    } finally {
      h.close();
    }
  });
});
