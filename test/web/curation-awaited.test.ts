/**
 * The operator's curation reads and writes awaited, from the dashboard and the API alike: on
 * PostgreSQL (this file also runs there) editing, pinning, sharing, archiving, restoring,
 * deactivating, merging and deleting memories, acknowledging or reopening event groups,
 * resetting or allowing a cooldown and stopping a session never hold serve's event loop while
 * the server answers, so an operator tidying up does not stall a running session's stream and
 * hooks. Each action's effect is checked too, as the operator would see it.
 */
import { describe, expect, it } from 'vitest';

import { blockingDuring } from '../helpers/postgres.js';
import {
  eachTestSignedIn,
  htmxHeaders,
  type SignedIn,
  TOKEN,
  type WebHarness,
} from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

const api = (method: string, path: string, body?: unknown): RequestInit & { path: string } => ({
  path: `/api/v1${path}`,
  method,
  headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

const dashboard = (method: string, path: string, form?: Record<string, string>) => ({
  path,
  method,
  headers: htmxHeaders(auth),
  ...(form ? { body: new URLSearchParams(form) } : {}),
});

/** Runs the actions in turn, each answered 2xx; the ones that held the loop, and how often. */
async function blockedBy(actions: (RequestInit & { path: string })[]): Promise<string[]> {
  const blocked: string[] = [];
  for (const { path, ...init } of actions) {
    const n = await blockingDuring(h.stores.db, async () => {
      const res = await h.request(path, init);
      expect(res.status, `${init.method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
      await res.text();
    });
    if (n > 0) blocked.push(`${init.method} ${path}: ${n}`);
  }
  return blocked;
}

describe("the operator's curation", () => {
  it('holds no statement on the event loop, from the API or the dashboard', async () => {
    const add = async (service: string, observation: string) =>
      (await h.knowledge.memory.add({ service, category: 'behavior', observation })).memory.id;
    const fan = await add('nas', 'the nas fan is loud under load');
    const disk = await add('nas', 'the nas backup disk fills up on Sundays');
    const dns = await add('dns', 'pihole forgets its upstream after a reboot');
    const web = await add('web', 'caddy renews its certificate at midnight');
    const loud = await add('ups', 'the ups beeps twice at night');
    const noisy = await add('printer', 'the office printer jams on cardstock');
    const actions = [
      api('PUT', `/memories/${fan}`, { observation: 'the nas fan is very loud under load' }),
      api('PUT', `/memories/${fan}`, { pinned: true, importance: 'high', confidence: 0.9 }),
      api('POST', `/memories/${fan}/share`),
      dashboard('POST', `/memories/${fan}/unshare`),
      api('POST', `/memories/${disk}/archive`, { reason: 'the disk was replaced' }),
      api('POST', `/memories/${disk}/restore`),
      api('PUT', `/memories/${dns}`, { active: false }),
      api('PUT', `/memories/${dns}`, { active: true, confidence: 0.6 }),
      dashboard('PUT', `/memories/${dns}`, { observation: 'pihole loses its upstream on reboot' }),
      dashboard('POST', `/memories/${web}/archive`, { reason: 'moved to traefik' }),
      dashboard('POST', `/memories/${web}/restore`),
      dashboard('POST', '/memories/bulk/deactivate', { ids: String(web) }),
      dashboard('DELETE', `/memories/${web}`),
      api('DELETE', '/memories/bulk', { ids: [dns] }),
      api('DELETE', `/memories/${disk}`),
      api('POST', '/memories/merge', { ids: [fan, loud] }),
      {
        ...dashboard('POST', '/memories/bulk/merge', { ids: String(fan) }),
        body: new URLSearchParams([
          ['ids', String(fan)],
          ['ids', String(noisy)],
        ]),
      },
    ];
    expect(await blockedBy(actions)).toEqual([]);

    // What the operator sees after: one memory left, edited, pinned and high; the others gone,
    // each deleted with a tombstone that says by whom.
    const left = await h.stores.memories.getAwaited(fan);
    expect(left).toMatchObject({
      observation: 'the nas fan is very loud under load',
      pinned: true,
      importance: 'high',
      confidence: 0.9,
      active: true,
      instance: h.knowledge.memory.instance,
    });
    expect(h.stores.memories.history(fan).map((e) => e.action)).toContain('shared');
    expect(h.stores.memories.history(fan).map((e) => e.action)).toContain('unshared');
    // Both merged into it, archived and linked to it.
    for (const id of [loud, noisy]) {
      expect(await h.stores.memories.getAwaited(id)).toMatchObject({
        active: false,
        archiveReason: `merged into #${fan}`,
      });
    }
    for (const id of [disk, dns, web]) {
      expect(await h.stores.memories.getAwaited(id)).toBeNull();
      expect(h.stores.tombstones.ofMemory(id)).not.toEqual([]);
    }
    expect(h.stores.memories.history(dns).map((e) => e.action)).toEqual([
      'created',
      'deactivated',
      'edited',
      'reactivated',
      'edited',
      'deleted',
    ]);
  });

  it('acknowledges and reopens event groups without holding the event loop', async () => {
    const at = h.clock.now();
    for (const message of ['disk 91% full', 'fan loud', 'ups on battery']) {
      h.stores.events.insert({
        sessionId: null,
        source: 'agent',
        level: 'warning',
        service: 'nas',
        message,
        createdAt: at,
      });
    }
    const [a, b, c] = (await h.stores.eventGroups.listAwaited()).map((g) => g.id);
    const actions = [
      api('POST', `/event-groups/${a}/ack`),
      api('POST', `/event-groups/${a}/reopen`),
      dashboard('POST', `/events/groups/${b}/ack`),
      {
        ...dashboard('POST', '/events/groups/ack'),
        body: new URLSearchParams([
          ['ids', String(a)],
          ['ids', String(c)],
        ]),
      },
      dashboard('POST', `/events/groups/${b}/reopen`),
    ];
    expect(await blockedBy(actions)).toEqual([]);
    const acked = async (id: number | undefined) =>
      (await h.stores.eventGroups.getAwaited(id!))!.acked;
    expect([await acked(a), await acked(b), await acked(c)]).toEqual([true, false, true]);
  });

  it('records cooldown overrides and answers a stop without holding the event loop', async () => {
    const actions = [
      api('POST', '/cooldowns/overrides', {
        service: 'caddy',
        action: 'restart',
        kind: 'allow',
        count: 2,
        until: '2h',
        reason: 'cert renewal',
      }),
      dashboard('POST', '/cooldowns/overrides', {
        service: 'jellyfin',
        action: 'restart',
        kind: 'reset',
        reason: 'replaced the failing disk',
      }),
    ];
    expect(await blockedBy(actions)).toEqual([]);
    expect(
      (await h.stores.cooldownOverrides.recent()).map((o) => [o.service, o.kind, o.extra]),
    ).toEqual([
      ['jellyfin', 'reset', null],
      ['caddy', 'allow', 2],
    ]);

    const session = h.stores.sessions.start({
      trigger: 'manual',
      tier: 1,
      startedAt: h.clock.now(),
    });
    const stops: [string, RequestInit][] = [
      [`/api/v1/sessions/${session}/stop`, api('POST', '')],
      [`/sessions/${session}/stop`, dashboard('POST', '')],
    ];
    for (const [path, init] of stops) {
      const n = await blockingDuring(h.stores.db, async () => {
        const res = await h.request(path, init);
        // It ended before it was asked (no CLI runs it here): refused, and nothing blocked.
        expect(res.status, path).toBe(409);
        expect(await res.text()).toContain(`session ${session} is not running`);
      });
      expect(n, path).toBe(0);
    }
  });
});
