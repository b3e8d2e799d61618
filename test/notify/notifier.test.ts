/**
 * The notifier's behaviour as an operator sees it, on the Notifications page and in the API:
 * de-duplication with a count, the per-target rate limit, retries with backoff that survive a
 * restart, and secrets that never reach a page, an API answer or a log line.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/log.js';
import {
  BACKOFF_BASE_MS,
  buildTargets,
  createNotifier,
  type Notifier,
  type NotifySettings,
} from '../../src/notify/index.js';
import { httpReceiver, type HttpReceiver } from '../helpers/notify.js';
import { type SignedIn, webHarness, type WebHarness } from '../helpers/web.js';

const SETTINGS: NotifySettings = {
  escalationTier: 3,
  dedupWindowMs: 30 * 60_000,
  rateLimitPerHour: 20,
  retries: 3,
  timeoutMs: 5000,
};

let h: WebHarness | undefined;
let rx: HttpReceiver | undefined;
afterEach(async () => {
  h?.close();
  await rx?.close();
  h = undefined;
  rx = undefined;
});

interface Setup {
  h: WebHarness;
  auth: SignedIn;
  notifier: Notifier;
  logs: string[];
}

/** The dashboard with a notifier over its database, sending to `urls`. */
async function setUp(urls: string[], settings: Partial<NotifySettings> = {}): Promise<Setup> {
  const logs: string[] = [];
  let notifier!: Notifier;
  const mk = (
    base: Parameters<NonNullable<Parameters<typeof webHarness>[0]>['notifications'] & object>[0],
  ) => {
    notifier = createNotifier({
      store: base.stores.notifications,
      targets: buildTargets({ notifyUrls: urls, appriseUrls: [], appriseAvailable: false }),
      settings: { ...SETTINGS, ...settings },
      clock: base.clock,
      log: createLogger('debug', (line) => logs.push(line)),
      appriseBin: null,
      env: {},
    });
    return {
      targets: () => notifier.targets(),
      sendTest: (by: string) => notifier.sendTest(by),
      settings: { ...SETTINGS, ...settings },
    };
  };
  h = webHarness({ notifications: mk });
  return { h, auth: await h.login(), notifier, logs };
}

const page = async (s: Setup) =>
  (await s.h.request('/notifications', { headers: { Cookie: s.auth.cookie } })).text();
const api = async (s: Setup) =>
  (await (
    await s.h.request('/api/v1/notifications', { headers: { Cookie: s.auth.cookie } })
  ).json()) as {
    notifications: {
      title: string;
      count: number;
      deliveries: {
        status: string;
        attempts: number;
        last_error: string | null;
        next_attempt_at: string | null;
      }[];
    }[];
    deliveries: Record<string, number>;
  };

const critical = (message: string, service = 'nas') => ({
  kind: 'critical_event' as const,
  service,
  message,
  sessionId: null,
  tier: 1,
});

describe('notifications', () => {
  it('counts the same service and message within the window as one notification, and sends it once', async () => {
    rx = await httpReceiver();
    const s = await setUp([`json+${rx.url}/hook`]);
    s.notifier.notify(critical('disk 3 failed'));
    s.h.clock.advance(60_000);
    s.notifier.notify(critical('Disk 3   failed'));
    s.notifier.notify(critical('disk 4 failed')); // digits differ only: the same
    s.notifier.notify(critical('disk 3 failed', 'web')); // another service: its own
    await s.notifier.tick();
    const body = await api(s);
    expect(body.notifications.map((n) => [n.title, n.count])).toEqual([
      ['Critical: web', 1],
      ['Critical: nas', 3],
    ]);
    expect(rx.requests).toHaveLength(2);
    expect(JSON.stringify(rx.requests.map((r) => r.json))).toContain('Seen 3 times since');

    // After the window, the same message is a new notification.
    s.h.clock.advance(30 * 60_000);
    s.notifier.notify(critical('disk 3 failed'));
    await s.notifier.tick();
    expect(rx.requests).toHaveLength(3);
    expect((await api(s)).notifications).toHaveLength(3);
  });

  it('holds back what is over a target’s hourly rate limit, shows it, and says so in the next message', async () => {
    rx = await httpReceiver();
    const s = await setUp([`json+${rx.url}/hook`], { rateLimitPerHour: 2 });
    for (const m of ['a failed', 'b failed', 'c failed', 'd failed'])
      s.notifier.notify(critical(m, m[0]));
    await s.notifier.tick();
    expect(rx.requests).toHaveLength(2);
    const body = await api(s);
    expect(body.deliveries).toMatchObject({ sent: 2, suppressed: 2 });
    const html = await page(s);
    expect(html.match(/held back<\/span>/g)).toHaveLength(2);
    expect(html).toContain('the rate limit of 2 per hour for this target was reached');

    s.h.clock.advance(3_600_001);
    s.notifier.notify(critical('e failed', 'e'));
    await s.notifier.tick();
    expect(rx.requests).toHaveLength(3);
    expect((rx.requests[2]!.json as { message: string }).message).toContain(
      '2 earlier notifications were held back by the rate limit',
    );
  });

  it('retries a failing target with doubling backoff: the page shows it retrying with the error, then delivered', async () => {
    rx = await httpReceiver();
    rx.respond.push(503, 500);
    const s = await setUp([`json+${rx.url}/hook`]);
    s.notifier.notify(critical('disk 3 failed'));
    await s.notifier.tick();

    let d = (await api(s)).notifications[0]!.deliveries[0]!;
    expect(d).toMatchObject({
      status: 'retrying',
      attempts: 1,
      last_error: 'HTTP 503: upstream trouble 503',
    });
    expect(Date.parse(d.next_attempt_at!)).toBe(s.h.clock.now() + BACKOFF_BASE_MS);
    let html = await page(s);
    expect(html).toContain('retrying</span>');
    expect(html).toContain('HTTP 503: upstream trouble 503');

    // Not due yet: nothing is sent.
    s.h.clock.advance(BACKOFF_BASE_MS - 1);
    await s.notifier.tick();
    expect(rx.requests).toHaveLength(1);

    s.h.clock.advance(1);
    await s.notifier.tick();
    d = (await api(s)).notifications[0]!.deliveries[0]!;
    expect(d).toMatchObject({
      status: 'retrying',
      attempts: 2,
      last_error: 'HTTP 500: upstream trouble 500',
    });
    expect(Date.parse(d.next_attempt_at!)).toBe(s.h.clock.now() + 2 * BACKOFF_BASE_MS);

    s.h.clock.advance(2 * BACKOFF_BASE_MS);
    await s.notifier.tick();
    d = (await api(s)).notifications[0]!.deliveries[0]!;
    expect(d).toMatchObject({ status: 'sent', attempts: 3, last_error: null });
    html = await page(s);
    expect(html).toContain('delivered</span>');
    expect(rx.requests).toHaveLength(3);
  });

  it('keeps a pending retry across a restart: a new notifier over the same database delivers it', async () => {
    rx = await httpReceiver();
    rx.respond.push(500);
    const s = await setUp([`json+${rx.url}/hook`]);
    s.notifier.notify(critical('disk 3 failed'));
    await s.notifier.tick();
    await s.notifier.close();
    const again = createNotifier({
      store: s.h.stores.notifications,
      targets: buildTargets({
        notifyUrls: [`json+${rx.url}/hook`],
        appriseUrls: [],
        appriseAvailable: false,
      }),
      settings: SETTINGS,
      clock: s.h.clock,
      log: createLogger('silent', () => {}),
      appriseBin: null,
      env: {},
    });
    s.h.clock.advance(BACKOFF_BASE_MS);
    await again.tick();
    expect((await api(s)).deliveries).toMatchObject({ sent: 1, retrying: 0 });
  });

  it('gives up after the configured retries and shows the delivery failed', async () => {
    rx = await httpReceiver();
    rx.respond.push(500, 500);
    const s = await setUp([`json+${rx.url}/hook`], { retries: 1 });
    s.notifier.notify(critical('disk 3 failed'));
    await s.notifier.tick();
    s.h.clock.advance(BACKOFF_BASE_MS);
    await s.notifier.tick();
    expect((await api(s)).notifications[0]!.deliveries[0]).toMatchObject({
      status: 'failed',
      attempts: 2,
      next_attempt_at: null,
    });
    expect(await page(s)).toContain('failed</span>');
  });

  it('never shows a URL’s secrets: not on the page, not in the API, not in a log line', async () => {
    rx = await httpReceiver();
    rx.respond.push(500);
    const host = rx.url.slice('http://'.length);
    const secrets = ['tk_NtfyToken77', 'GotifyAppKey55', 'hookpass99', 'private-topic-x1'];
    const s = await setUp([
      `ntfy://tk_NtfyToken77@${host}/private-topic-x1`,
      `gotify://${host}/GotifyAppKey55`,
      `json://hookuser:hookpass99@127.0.0.1:1/in`, // refused connection: an error to show
    ]);
    s.notifier.notify(critical('disk 3 failed'));
    await s.notifier.tick();
    const html = await page(s);
    const json = JSON.stringify(await api(s));
    const logs = s.logs.join('');
    expect(html).toContain(`ntfy://***@${host}/***`);
    expect(html).toContain(`gotify://${host}/***`);
    expect(logs).toContain('notification not delivered; will retry');
    for (const secret of secrets) {
      expect(html).not.toContain(secret);
      expect(json).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });

  it('sends a test notification from the page’s button (CSRF-checked like every form)', async () => {
    rx = await httpReceiver();
    const s = await setUp([`json+${rx.url}/hook`]);
    const refused = await s.h.request('/notifications/test', {
      method: 'POST',
      headers: {
        Cookie: s.auth.cookie,
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'http://localhost',
      },
      body: new URLSearchParams({ _csrf: 'wrong' }),
    });
    expect(refused.status).toBe(403);
    const res = await s.h.request('/notifications/test', {
      method: 'POST',
      headers: {
        Cookie: s.auth.cookie,
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'http://localhost',
      },
      body: new URLSearchParams({ _csrf: s.auth.csrf }),
    });
    expect(res.status).toBe(303);
    await s.notifier.tick();
    expect(rx.requests).toHaveLength(1);
    expect(rx.requests[0]!.json).toMatchObject({ title: 'watchkeeper: Test notification' });
    expect(await page(s)).toContain('Test notification');
  });

  it('lists the page in the navigation and asks anonymous visitors to sign in', async () => {
    const s = await setUp([]);
    expect(await page(s)).toContain('<a href="/notifications" class="active">Notifications</a>');
    const anon = await s.h.request('/notifications');
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toBe('/login?next=%2Fnotifications');
  });
});
