import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { memoryKey } from '../../src/memory/index.js';
import { estimateTokens } from '../../src/memory/tokens.js';
import { seedMemory, testApp, type TestApp } from '../helpers/db.js';

let app: TestApp;
beforeEach(() => {
  app = testApp();
});
afterEach(() => app.close());

const observe = (
  observation: string,
  service: string | null = 'jellyfin',
  category: 'timing' | 'behavior' = 'timing',
) => app.keeper.observe({ service, category, observation, sessionId: null, tier: 1 });

describe('memory service: observe', () => {
  it('reinforces a similar active memory (+0.1, capped at 1.0) and records the new wording', async () => {
    const first = await observe('Takes 60s to start after restart');
    for (let i = 0; i < 5; i += 1) await observe('Takes about 60s to start after a restart');
    const m = app.stores.memories.get(first.memory.id)!;
    expect(m.confidence).toBe(1);
    expect(m.observation).toBe('Takes 60s to start after restart');
    const history = app.stores.memories.history(m.id);
    expect(history.map((h) => h.newConfidence)).toEqual([0.7, 0.8, 0.9, 1, 1, 1]);
    expect(history[1]!.observation).toBe('Takes about 60s to start after a restart');
  });

  it('keeps a dissimilar observation for the same service and category as a second memory', async () => {
    await observe('Takes 60s to start after restart');
    const second = await observe('Transcoding queue stalls when /transcode is full');
    expect(second.action).toBe('created');
    expect(await app.stores.memories.count({ service: 'jellyfin', category: 'timing' })).toBe(2);
  });

  it('supersedes a memory whose schedule changed, where the words alone said the same fact', async () => {
    const weekly = await observe('Backups of the postgres volume run weekly', 'postgres');
    const monthly = await observe('Backups of the postgres volume run monthly', 'postgres');
    expect(monthly).toMatchObject({
      action: 'superseded',
      replaced: { id: weekly.memory.id, active: false },
      contradiction: { kind: 'frequency', old: 'weekly', new: 'monthly' },
    });
  });

  it('reinforces a rewording whose negation is of another verb instead of superseding it', async () => {
    const first = await observe('Pods are never scheduled on node3', 'k8s', 'behavior');
    const again = await observe('Pods stay unscheduled on node3', 'k8s', 'behavior');
    expect(again).toMatchObject({ action: 'reinforced', memory: { id: first.memory.id } });
  });

  it('reinforces a looser rewording that states the same values in other units', async () => {
    const first = await observe(
      'jellyfin takes about 60 s to come back after a restart; health checks fail until then',
    );
    // Close (Dice 0.47), short of a duplicate (0.5): "a minute" is its "60 s".
    const again = await observe(
      'after a restart jellyfin needs a minute before its health checks pass',
    );
    expect(again).toMatchObject({ action: 'reinforced', memory: { id: first.memory.id } });
    // As close, with no value to compare: a memory of its own.
    const other = await observe(
      'after a restart jellyfin rescans the library before health checks pass',
    );
    expect(other.action).toBe('created');
  });

  it('keeps a value of another thing apart, neither reinforcing nor superseding', async () => {
    const scan = await observe('The jellyfin library scan takes about 20 minutes');
    const restart = await observe('A jellyfin restart takes about 60 seconds');
    expect(restart.action).toBe('created');
    expect(app.stores.memories.get(scan.memory.id)).toMatchObject({
      active: true,
      confidence: 0.7,
    });
  });

  it('reads "no longer" of what a memory states as its change', async () => {
    const first = await observe('Sonarr gets its indexers from prowlarr', 'sonarr', 'behavior');
    const changed = await observe(
      'Sonarr no longer depends on prowlarr; its indexers are set directly',
      'sonarr',
      'behavior',
    );
    expect(changed).toMatchObject({ action: 'superseded', replaced: { id: first.memory.id } });
  });

  it('does not reinforce an inactive memory', async () => {
    const m = (await observe('Takes 60s to start after restart')).memory;
    await app.keeper.deactivate([m.id]);
    expect((await observe('Takes 60s to start after restart')).action).toBe('created');
  });
});

describe('memory service: decay against the store', () => {
  it('brings a memory reinforced 44 days ago to 0.5, and ten more runs change nothing', async () => {
    const m = (await observe('Takes 60s to start after restart')).memory;
    app.clock.advance(44 * DAY_MS);
    expect(await app.keeper.decay()).toEqual({ decayed: 1, deactivated: 0 });
    for (let i = 0; i < 10; i += 1)
      expect(await app.keeper.decay()).toEqual({ decayed: 0, deactivated: 0 });
    expect(app.stores.memories.get(m.id)!.confidence).toBe(0.5);
    expect(app.stores.memories.history(m.id).map((h) => h.action)).toEqual(['created', 'decayed']);
  });

  it('gives the same confidences when decay runs daily for 40 days as when it runs once', async () => {
    const ids: number[] = [];
    for (const [i, gap] of [10, 10, 10, 0].entries()) {
      const m = (await observe(`Distinct observation number ${i} about timing`, `svc-${i}`)).memory;
      app.clock.advance(gap * DAY_MS);
      ids.push(m.id);
    }
    const start = app.clock.now();
    const once = testApp();
    try {
      // Same memories, same ages, one decay run at the end.
      const daily: number[] = [];
      for (let day = 1; day <= 40; day += 1) {
        app.clock.set(start + day * DAY_MS);
        await app.keeper.decay();
      }
      for (const id of ids) daily.push(app.stores.memories.get(id)!.confidence);
      for (const [i, gap] of [10, 10, 10, 0].entries()) {
        await once.keeper.observe({
          service: `svc-${i}`,
          category: 'timing',
          observation: `Distinct observation number ${i} about timing`,
          sessionId: null,
          tier: 1,
        });
        once.clock.advance(gap * DAY_MS);
      }
      once.clock.set(once.clock.now() + 40 * DAY_MS);
      await once.keeper.decay();
      expect(
        once.stores.memories
          .list({ status: 'all' })
          .sort((a, b) => a.id - b.id)
          .map((m) => m.confidence),
      ).toEqual(daily);
      expect(daily).toEqual([0.2, 0.3, 0.5, 0.6]);
    } finally {
      once.close();
    }
  });

  it('deactivates below 0.3, never touches pinned ones, and a reinforcement restarts the clock', async () => {
    const stale = (await observe('Takes 60s to start after restart')).memory;
    const pinned = (await observe('Needs the NFS share mounted first', 'jellyfin', 'behavior'))
      .memory;
    await app.keeper.setPinned(pinned.id, true);
    app.clock.advance(40 * DAY_MS);
    const fresh = (await observe('Web UI answers slowly for a minute', 'caddy')).memory;
    await observe('Web UI answers slowly for a minute', 'caddy'); // reinforced now
    app.clock.advance(30 * DAY_MS);
    await app.keeper.decay();
    expect(app.stores.memories.get(stale.id)).toMatchObject({ confidence: 0.2, active: false });
    expect(app.stores.memories.get(pinned.id)).toMatchObject({ confidence: 0.7, active: true });
    expect(app.stores.memories.get(fresh.id)).toMatchObject({ confidence: 0.8, active: true });
  });
});

describe('memory service: operator curation', () => {
  it('rejects a bad confidence or empty text and changes nothing', async () => {
    const m = (await observe('Takes 60s to start after restart')).memory;
    await expect(app.keeper.edit(m.id, { confidence: 1.5 })).rejects.toThrow(
      /confidence: must be a number from 0 to 1/,
    );
    await expect(app.keeper.edit(m.id, { confidence: Number.NaN })).rejects.toThrow(/confidence/);
    await expect(app.keeper.edit(m.id, { observation: '   ' })).rejects.toThrow(
      /observation: must not be empty/,
    );
    expect(app.stores.memories.get(m.id)).toEqual(m);
    expect(app.stores.memories.history(m.id)).toHaveLength(1);
  });

  it('edits wording and confidence, restarting the decay clock', async () => {
    const m = (await observe('Takes 60s to start')).memory;
    app.clock.advance(50 * DAY_MS);
    await app.keeper.edit(m.id, { observation: 'Takes 90s to start on the NAS', confidence: 0.9 });
    app.clock.advance(20 * DAY_MS);
    await app.keeper.decay();
    expect(app.stores.memories.get(m.id)).toMatchObject({
      observation: 'Takes 90s to start on the NAS',
      confidence: 0.9,
    });
  });

  it('reactivates only with a confidence of at least 0.3', async () => {
    const m = (await observe('Takes 60s to start')).memory;
    app.clock.advance(70 * DAY_MS);
    await app.keeper.decay();
    expect(app.stores.memories.get(m.id)!.active).toBe(false);
    await expect(app.keeper.reactivate(m.id)).rejects.toThrow(/at least 0.3/);
    expect(await app.keeper.reactivate(m.id, 0.6)).toMatchObject({ active: true, confidence: 0.6 });
    expect(app.stores.memories.history(m.id).map((h) => h.action)).toEqual([
      'created',
      'deactivated',
      'reactivated',
    ]);
  });

  it('deletes memories but keeps their history', async () => {
    const a = (await observe('Takes 60s to start')).memory;
    const b = (await observe('Cache warms for 5 minutes', 'caddy')).memory;
    expect(await app.keeper.remove([a.id, b.id, 9999])).toBe(2);
    expect(await app.stores.memories.count({ status: 'all' })).toBe(0);
    expect(app.stores.memories.history(a.id).map((h) => h.action)).toEqual(['created', 'deleted']);
  });

  it('leaves a tombstone of every wording a deleted memory had, with when and by whom', async () => {
    const a = (await observe('Takes 60s to start')).memory;
    app.clock.advance(DAY_MS);
    await app.keeper.edit(a.id, { observation: 'Takes 90s to start' });
    app.clock.advance(DAY_MS);
    expect(await app.keeper.remove([a.id], 'API token')).toBe(1);
    const hash = (text: string) =>
      memoryKey({
        scope: 'ops',
        service: 'jellyfin',
        category: 'timing',
        text,
        createdAt: a.createdAt,
      });
    expect(app.stores.tombstones.ofMemory(a.id)).toEqual(
      ['Takes 90s to start', 'Takes 60s to start'].map((text) => ({
        memoryId: a.id,
        contentHash: hash(text),
        deletedAt: a.createdAt + 2 * DAY_MS,
        deletedBy: 'API token',
        instance: 'local',
      })),
    );
  });
});

describe('memory service: context', () => {
  it('orders services by their best memory, puts general last and leaves inactive ones out', async () => {
    seedMemory(app, {
      service: 'postgres',
      category: 'maintenance',
      observation: 'Needs VACUUM weekly',
      confidence: 1,
    });
    seedMemory(app, {
      service: null,
      category: 'remediation',
      observation: 'Retry DNS once',
      confidence: 0.95,
    });
    seedMemory(app, {
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to start',
      confidence: 0.9,
    });
    const off = seedMemory(app, {
      service: 'jellyfin',
      category: 'behavior',
      observation: 'Old news',
      confidence: 0.8,
    });
    await app.keeper.deactivate([off.id]);
    const block = await app.knowledge.injection.build({ trigger: null }, 2000);
    expect(block.text.split('\n').filter((l) => l.startsWith('###'))).toEqual([
      '### postgres',
      '### jellyfin',
      '### general',
    ]);
    expect(block.text).toContain('(3 of 3 memories');
    expect(block.text).not.toContain('Old news');
  });

  it('runs decay before assembling, so stale memories drop out', async () => {
    seedMemory(app, { service: 'jellyfin', category: 'timing', observation: 'Takes 60s to start' });
    app.clock.advance(100 * DAY_MS);
    expect((await app.knowledge.injection.build({ trigger: null }, 2000)).text).toBe('');
  });

  it('respects the budget with 1,000 memories in the store', async () => {
    for (let i = 0; i < 1000; i += 1) {
      seedMemory(app, {
        service: `svc-${i % 37}`,
        category: 'behavior',
        observation: `Observation number ${i} about this service`,
        confidence: 0.3 + (i % 70) / 100,
      });
    }
    const block = await app.knowledge.injection.build({ trigger: null }, 2000);
    expect(estimateTokens(block.text)).toBeLessThanOrEqual(2000);
    expect(block.totalEligible).toBe(1000);
    expect(block.includedIds.length).toBeGreaterThan(20);
  });
});
