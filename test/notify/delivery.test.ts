/**
 * Each kind of target against a receiver on loopback speaking that service's request shape:
 * the generic JSON webhook, ntfy, Gotify, Slack-, Discord- and Mattermost-compatible incoming
 * webhooks, SMTP e-mail (smtp-server), and Apprise through a fake `apprise` command.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { silentLogger } from '../../src/log.js';
import { buildTargets, createNotifier, type Notifier } from '../../src/notify/index.js';
import { testApp, type TestApp } from '../helpers/db.js';
import {
  fakeApprise,
  type FakeApprise,
  httpReceiver,
  type HttpReceiver,
  smtpReceiver,
} from '../helpers/notify.js';

const SETTINGS = {
  escalationTier: 3 as const,
  dedupWindowMs: 30 * 60_000,
  rateLimitPerHour: 20,
  retries: 3,
  timeoutMs: 5000,
};

let app: TestApp;
let rx: HttpReceiver;
beforeEach(async () => {
  app = testApp();
  rx = await httpReceiver();
});
afterEach(async () => {
  app.close();
  await rx.close();
});

function notifierFor(
  urls: { notify?: string[]; apprise?: string[] },
  o: { appriseBin?: string; env?: Record<string, string> } = {},
): Notifier {
  return createNotifier({
    store: app.stores.notifications,
    targets: buildTargets({
      notifyUrls: urls.notify ?? [],
      appriseUrls: urls.apprise ?? [],
      appriseAvailable: o.appriseBin !== undefined,
    }),
    settings: SETTINGS,
    clock: app.clock,
    log: silentLogger,
    appriseBin: o.appriseBin ?? null,
    env: o.env ?? {},
  });
}

const critical = {
  kind: 'critical_event' as const,
  service: 'nas',
  message: 'RAID degraded: disk 3 failed',
  sessionId: null,
  tier: 1,
};

async function deliverOne(url: string) {
  const n = notifierFor({ notify: [url] });
  n.notify(critical);
  await n.tick();
  expect((await app.stores.notifications.statusCounts()).sent).toBe(1);
  expect(rx.requests).toHaveLength(1);
  return rx.requests[0]!;
}

describe('built-in targets receive their service’s request', () => {
  it('a generic JSON webhook gets Apprise’s JSON format, with basic auth from the URL', async () => {
    const host = rx.url.slice('http://'.length);
    const req = await deliverOne(`json://bot:s3cret@${host}/hooks/in?team=ops`);
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hooks/in?team=ops');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('bot:s3cret').toString('base64')}`);
    expect(req.json).toEqual({
      version: '1.0',
      title: 'watchkeeper: Critical: nas',
      message: 'RAID degraded: disk 3 failed',
      type: 'failure',
    });
  });

  it('ntfy gets its JSON publish at the server root, topic in the body, token as bearer', async () => {
    const host = rx.url.slice('http://'.length);
    const req = await deliverOne(`ntfy://tk_token123@${host}/ops-alerts`);
    expect(req.url).toBe('/');
    expect(req.headers.authorization).toBe('Bearer tk_token123');
    expect(req.json).toMatchObject({
      topic: 'ops-alerts',
      title: 'watchkeeper: Critical: nas',
      message: 'RAID degraded: disk 3 failed',
      priority: 5,
    });
  });

  it('Gotify gets /message with the app token in X-Gotify-Key (not in the query string)', async () => {
    const host = rx.url.slice('http://'.length);
    const req = await deliverOne(`gotify://${host}/AppTokenXYZ`);
    expect(req.url).toBe('/message');
    expect(req.headers['x-gotify-key']).toBe('AppTokenXYZ');
    expect(req.json).toEqual({
      title: 'watchkeeper: Critical: nas',
      message: 'RAID degraded: disk 3 failed',
      priority: 8,
    });
  });

  it('a Slack-compatible incoming webhook gets {text}', async () => {
    const req = await deliverOne(`slack+${rx.url}/services/T1/B2/C3`);
    expect(req.url).toBe('/services/T1/B2/C3');
    expect(req.json).toEqual({
      text: '*watchkeeper: Critical: nas*\nRAID degraded: disk 3 failed',
    });
  });

  it('a Discord-compatible webhook gets an embed', async () => {
    const req = await deliverOne(`discord+${rx.url}/api/webhooks/42/tok`);
    expect(req.url).toBe('/api/webhooks/42/tok');
    expect(req.json).toEqual({
      username: 'watchkeeper',
      embeds: [
        {
          title: 'watchkeeper: Critical: nas',
          description: 'RAID degraded: disk 3 failed',
          color: 0xef4444,
        },
      ],
    });
  });

  it('a Mattermost incoming webhook (mmost://host/token) gets /hooks/TOKEN with {text}', async () => {
    const host = rx.url.slice('http://'.length);
    const req = await deliverOne(`mmost://${host}/hooktoken9`);
    expect(req.url).toBe('/hooks/hooktoken9');
    expect(req.json).toEqual({
      username: 'watchkeeper',
      text: '#### watchkeeper: Critical: nas\nRAID degraded: disk 3 failed',
    });
  });

  it('SMTP e-mail is sent through nodemailer, logged in with the URL’s credentials', async () => {
    const smtp = await smtpReceiver();
    try {
      const n = notifierFor({
        notify: [
          `mailto://alerts:mailpass1@127.0.0.1:${smtp.port}?to=oncall@example.com&from=wk@example.com`,
        ],
      });
      n.notify(critical);
      await n.tick();
      expect((await app.stores.notifications.statusCounts()).sent).toBe(1);
      expect(smtp.messages).toHaveLength(1);
      const m = smtp.messages[0]!;
      expect(m).toMatchObject({
        from: 'wk@example.com',
        to: ['oncall@example.com'],
        user: 'alerts',
        password: 'mailpass1',
      });
      expect(m.raw).toContain('Subject: watchkeeper: Critical: nas');
      expect(m.raw).toContain('RAID degraded: disk 3 failed');
    } finally {
      await smtp.close();
    }
  });
});

describe('Apprise targets', () => {
  let apprise: FakeApprise;
  beforeEach(() => {
    apprise = fakeApprise();
  });
  afterEach(() => apprise.close());

  it('go through the apprise command, the URL in a config file, never in argv', async () => {
    const url = 'tgram://123456:BotSecretToken/987';
    const n = notifierFor(
      { apprise: [url] },
      { appriseBin: `${apprise.path.split(':')[0]}/apprise`, env: { PATH: apprise.path } },
    );
    n.notify(critical);
    await n.tick();
    const calls = apprise.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.argv).toEqual([
      '--title=watchkeeper: Critical: nas',
      '--body=RAID degraded: disk 3 failed',
      '--notification-type=failure',
      '--input-format=text',
      expect.stringMatching(/^--config=/),
    ]);
    expect(calls[0]!.argv.join(' ')).not.toContain('BotSecretToken');
    expect(calls[0]!.config.trim()).toBe(url);
    expect((await app.stores.notifications.statusCounts()).sent).toBe(1);
  });

  it('a failing apprise is retried, its output stored without the URL’s secrets', async () => {
    apprise.failNext();
    const n = notifierFor(
      { apprise: ['tgram://123456:BotSecretToken/987'] },
      { appriseBin: `${apprise.path.split(':')[0]}/apprise`, env: { PATH: apprise.path } },
    );
    n.notify(critical);
    await n.tick();
    const [item] = await app.stores.notifications.list();
    expect(item!.deliveries[0]).toMatchObject({ status: 'retrying', attempts: 1 });
    expect(item!.deliveries[0]!.lastError).toMatch(/^apprise exited with code 1: could not notify/);
    expect(item!.deliveries[0]!.lastError).not.toContain('BotSecretToken');
    expect(item!.deliveries[0]!.lastError).not.toContain('123456');
  });
});
