/**
 * Notifications of a fleet sharing one database: two instances delivering at the same time send
 * each message once, a delivery whose sender died is sent by another once its claim runs out, an
 * instance fans out only its own notifications (to its own targets), and the hourly rate limit
 * counts every instance's deliveries.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { Stores } from '../../src/db/index.js';
import { silentLogger } from '../../src/log.js';
import {
  buildTargets,
  createNotifier,
  type Notifier,
  type NotifySettings,
} from '../../src/notify/index.js';
import { CLAIM_MARGIN_MS } from '../../src/notify/notifier.js';
import { fakeClock, type FakeClock } from '../helpers/clock.js';
import { httpReceiver, type HttpReceiver } from '../helpers/notify.js';
import { sharedStores, type SharedStores } from '../helpers/shared-stores.js';

const SETTINGS: NotifySettings = {
  escalationTier: 3,
  dedupWindowMs: 30 * 60_000,
  rateLimitPerHour: 20,
  retries: 3,
  timeoutMs: 5000,
};

let fleet: SharedStores;
let rx: HttpReceiver;
let clock: FakeClock;
const notifiers: Notifier[] = [];

beforeEach(async () => {
  fleet = sharedStores(['a', 'b']);
  rx = await httpReceiver();
  clock = fakeClock();
});
afterEach(async () => {
  for (const n of notifiers.splice(0)) await n.close();
  fleet.close();
  await rx.close();
});

function notifier(
  stores: Stores,
  urls: string[] = [jsonUrl(rx, '/hook')],
  settings: Partial<NotifySettings> = {},
): Notifier {
  const n = createNotifier({
    store: stores.notifications,
    targets: buildTargets({ notifyUrls: urls, appriseUrls: [], appriseAvailable: false }),
    settings: { ...SETTINGS, ...settings },
    clock,
    log: silentLogger,
    appriseBin: null,
    env: {},
  });
  notifiers.push(n);
  return n;
}

const jsonUrl = (r: HttpReceiver, path: string) => `json://${r.url.slice('http://'.length)}${path}`;

const critical = (message: string) => ({
  kind: 'critical_event' as const,
  service: 'nas',
  message,
  sessionId: null,
  tier: 1,
});

/** The messages the receiver got (Apprise's JSON format). */
const received = () => rx.requests.map((r) => (r.json as { message: string }).message);

describe('a fleet delivers each notification once', () => {
  it('two instances delivering at the same time send every message exactly once', async () => {
    const a = notifier(fleet.of.a!);
    const b = notifier(fleet.of.b!);
    const messages = [
      'disk sda failed',
      'disk sdb failed',
      'pool degraded',
      'fan stopped',
      'psu lost',
    ];
    messages.slice(0, 3).forEach((m) => a.notify(critical(m)));
    messages.slice(3).forEach((m) => b.notify(critical(m)));

    // Both rounds read the due deliveries before either has sent anything.
    await Promise.all([a.tick(), b.tick()]);
    await Promise.all([a.tick(), b.tick()]);

    const bodies = received();
    expect(bodies).toHaveLength(messages.length);
    for (const m of messages) expect(bodies.filter((body) => body.includes(m))).toHaveLength(1);
    expect(await fleet.of.a!.notifications.statusCounts()).toMatchObject({
      sent: messages.length,
      pending: 0,
      retrying: 0,
    });
  });

  it('a delivery claimed by an instance that died is sent by another once the claim runs out', async () => {
    // Instance a records and fans out a notification, claims its delivery, and dies mid-send.
    const dying = notifier(fleet.of.a!);
    dying.notify(critical('RAID degraded'));
    const a = fleet.of.a!.notifications;
    const [n] = await a.unfanned();
    const target = { targetKey: dying.targets()[0]!.key, status: 'pending' as const };
    a.fanOut(n!.id, [{ ...target, lastError: null }], clock.now());
    const [d] = await a.due(clock.now());
    const until = clock.now() + SETTINGS.timeoutMs + CLAIM_MARGIN_MS;
    expect(a.claim(d!.id, d!.nextAttemptAt!, until, clock.now())).toBe(true);

    const b = notifier(fleet.of.b!);
    await b.tick();
    expect(rx.requests).toHaveLength(0);

    clock.advance(SETTINGS.timeoutMs + CLAIM_MARGIN_MS);
    await b.tick();
    expect(received()).toEqual([expect.stringContaining('RAID degraded')]);
    const [row] = await fleet.of.b!.notifications.list(10);
    expect(row!.deliveries).toMatchObject([{ status: 'sent', attempts: 1 }]);
  });

  it('an instance fans out only its own notifications, and leaves deliveries to targets it lacks', async () => {
    const other = await httpReceiver();
    try {
      const a = notifier(fleet.of.a!);
      // b knows another target only: it must neither fan out a's notification nor give up on
      // a's delivery as "no longer configured".
      const b = notifier(fleet.of.b!, [jsonUrl(other, '/elsewhere')]);
      a.notify(critical('RAID degraded'));
      await b.tick();
      expect((await fleet.of.b!.notifications.list(10))[0]!.deliveries).toEqual([]);

      // Fanned out by a, then attempted by b first: b has no such target.
      const store = fleet.of.a!.notifications;
      const [n] = await store.unfanned();
      const target = { targetKey: a.targets()[0]!.key, status: 'pending' as const };
      store.fanOut(n!.id, [{ ...target, lastError: null }], clock.now());
      await b.tick();
      expect((await store.list(10))[0]!.deliveries).toMatchObject([
        { status: 'pending', attempts: 0 },
      ]);
      expect(other.requests).toHaveLength(0);

      await a.tick();
      expect(received()).toEqual([expect.stringContaining('RAID degraded')]);
    } finally {
      await other.close();
    }
  });

  it('names the instance that raised a notification in its title; a lone sidecar says nothing of it', async () => {
    const a = notifier(fleet.of.a!);
    const b = notifier(fleet.of.b!);
    a.notify(critical('RAID degraded'));
    b.notify({ ...critical('disk 3 failed'), service: 'backup' });
    await Promise.all([a.tick(), b.tick()]);
    const titles = rx.requests.map((r) => (r.json as { title: string }).title).sort();
    expect(titles).toEqual(['watchkeeper a: Critical: nas', 'watchkeeper b: Critical: backup']);
  });

  it('names the instance that raised it also when another instance sharing the target delivers it', async () => {
    const a = notifier(fleet.of.a!);
    const b = notifier(fleet.of.b!);
    a.notify(critical('RAID degraded'));
    // a fans it out to the target both share, and b's round comes first.
    const store = fleet.of.a!.notifications;
    const [n] = await store.unfanned();
    const target = { targetKey: a.targets()[0]!.key, status: 'pending' as const };
    store.fanOut(n!.id, [{ ...target, lastError: null }], clock.now());
    await b.tick();
    const titles = rx.requests.map((r) => (r.json as { title: string }).title);
    expect(titles).toEqual(['watchkeeper a: Critical: nas']);
  });

  it('de-duplicates among an instance’s own notifications: each instance’s goes to its targets', async () => {
    const a = notifier(fleet.of.a!);
    const b = notifier(fleet.of.b!);
    a.notify(critical('RAID degraded'));
    a.notify(critical('RAID degraded'));
    b.notify(critical('RAID degraded'));
    const rows = (await fleet.of.a!.notifications.list(10)).map((n) => n.notification);
    expect(rows.map((n) => n.count).sort()).toEqual([1, 2]);
    await Promise.all([a.tick(), b.tick()]);
    expect(received()).toHaveLength(2);
  });

  it('the hourly rate limit counts the deliveries of every instance', async () => {
    const a = notifier(fleet.of.a!, undefined, { rateLimitPerHour: 2 });
    const b = notifier(fleet.of.b!, undefined, { rateLimitPerHour: 2 });
    a.notify(critical('disk sda failed'));
    a.notify(critical('disk sdb failed'));
    await a.tick();
    b.notify(critical('fan stopped'));
    await b.tick();

    expect(received()).toHaveLength(2);
    const held = (await fleet.of.b!.notifications.list(10)).find((x) =>
      x.notification.body.includes('fan stopped'),
    )!;
    expect(held.deliveries).toMatchObject([{ status: 'suppressed' }]);
  });
});
