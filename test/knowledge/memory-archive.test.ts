/**
 * The memory service's archive, restore, deliberate reinforcement and importance (seed 002),
 * and importance in the search score.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { testApp, type TestApp } from '../helpers/db.js';

let app: TestApp;
beforeEach(() => {
  app = testApp();
});
afterEach(() => app.close());

const add = (
  observation: string,
  importance?: 'low' | 'normal' | 'high' | 'core',
  service = 'jellyfin',
) =>
  app.keeper.observe({
    service,
    category: 'timing',
    observation,
    sessionId: null,
    tier: 0,
    source: 'tool',
    ...(importance ? { importance } : {}),
  });

describe('archive and restore', () => {
  it('archives with the reason and date kept, in the history too; restore brings it back active', async () => {
    const m = (await add('Takes 60s to start after a restart')).memory;
    app.clock.advance(DAY_MS);
    const archived = await app.keeper.archive(m.id, '  the server was replaced  ');
    expect(archived).toMatchObject({
      active: false,
      archivedAt: app.clock.now(),
      archiveReason: 'the server was replaced',
    });
    expect(app.keeper.inactiveReason(archived)).toEqual({
      reason: 'the server was replaced',
      at: app.clock.now(),
    });
    // Archiving twice changes nothing.
    await app.keeper.archive(m.id, 'again');
    app.clock.advance(DAY_MS);
    const restored = await app.keeper.restore(m.id);
    expect(restored).toMatchObject({ active: true, archivedAt: null, archiveReason: null });
    expect(restored.lastReinforcedAt).toBe(app.clock.now()); // the decay clock restarts
    expect(app.stores.memories.history(m.id).map((h) => [h.action, h.source, h.evidence])).toEqual([
      ['created', 'tool', null],
      ['archived', 'operator', 'the server was replaced'],
      ['restored', 'operator', null],
    ]);
    await expect(app.keeper.restore(m.id)).rejects.toThrow(
      /memory 1 is active; there is nothing to restore/,
    );
  });

  it('never archives a core memory, and keeps it pinned', async () => {
    const m = (await add('Holds the only copy of the family photos', 'core')).memory;
    expect(m).toMatchObject({ importance: 'core', pinned: true });
    await expect(app.keeper.archive(m.id, 'x')).rejects.toThrow(
      /memory 1 is core, and core memories are never archived/,
    );
    await expect(app.keeper.setPinned(m.id, false)).rejects.toThrow(/core memories stay pinned/);
    expect(app.stores.memories.get(m.id)).toMatchObject({ active: true, pinned: true });
  });

  it('a reactivated archived memory is no longer archived', async () => {
    const m = (await add('Takes 60s to start after a restart')).memory;
    await app.keeper.archive(m.id, 'old');
    expect(await app.keeper.reactivate(m.id)).toMatchObject({ active: true, archivedAt: null });
  });

  it('says why a memory is inactive: superseded, decayed, deactivated', async () => {
    const old = (await add('Listens on port 8096')).memory;
    const next = await add('Listens on port 8097');
    expect(next.action).toBe('superseded');
    expect(app.keeper.inactiveReason(next.memory)).toBeNull();
    expect(app.keeper.inactiveReason(app.stores.memories.get(old.id)!)!.reason).toBe(
      `superseded by memory #${next.memory.id}, which says otherwise`,
    );
    const stale = (await add('Nightly scan takes two hours', 'normal', 'plex')).memory;
    app.clock.advance(120 * DAY_MS);
    await app.keeper.decay();
    expect(app.keeper.inactiveReason(app.stores.memories.get(stale.id)!)).toEqual({
      reason: 'decayed: confidence fell to 0.2, below 0.3',
      at: app.clock.now(),
    });
    const off = (await add('Retry DNS once', 'normal', 'pihole')).memory;
    await app.keeper.deactivate([off.id]);
    expect(app.keeper.inactiveReason(app.stores.memories.get(off.id)!)!.reason).toBe(
      'deactivated by the operator',
    );
  });
});

describe('deliberate reinforcement and importance', () => {
  it('adds 0.1 confidence and 0.1 importance with the evidence in the history; suggests core from 0.8', async () => {
    const m = (await add('Needs the NFS share mounted first')).memory;
    const first = app.keeper.reinforce(m.id, {
      sessionId: null,
      evidence: 'saw it wait on mnt-media.mount',
      observation: 'needs the NFS mount',
    });
    expect(first).toMatchObject({
      importanceBefore: 0.5,
      importanceAfter: 0.6,
      suggestCore: false,
      memory: { confidence: 0.8, importanceBoost: 0.1, accessCount: 1 },
    });
    app.keeper.reinforce(m.id, { sessionId: null });
    const third = app.keeper.reinforce(m.id, { sessionId: null });
    expect(third).toMatchObject({ importanceAfter: 0.8, suggestCore: true });
    expect(app.stores.memories.history(m.id)[1]).toMatchObject({
      action: 'reinforced',
      source: 'tool',
      evidence: 'saw it wait on mnt-media.mount',
      observation: 'needs the NFS mount',
    });
    // Promotion: a new level, pinned, without the boost of the old one.
    const core = await app.keeper.setImportance(m.id, 'core');
    expect(core).toMatchObject({ importance: 'core', importanceBoost: 0, pinned: true });
    expect(app.stores.memories.history(m.id).at(-1)).toMatchObject({
      action: 'edited',
      evidence: 'importance normal -> core',
    });
    // Importance stops at 1.0 in all.
    for (let i = 0; i < 3; i += 1) app.keeper.reinforce(m.id, { sessionId: null });
    expect(app.stores.memories.get(m.id)!.importanceBoost).toBe(0.1);
  });

  it('refuses evidence that is too long or holds control characters, changing nothing', async () => {
    const m = (await add('Needs the NFS share mounted first')).memory;
    expect(() =>
      app.keeper.reinforce(m.id, { sessionId: null, evidence: 'x'.repeat(2001) }),
    ).toThrow(/new_evidence: is 2001 characters/);
    expect(() => app.keeper.reinforce(m.id, { sessionId: null, evidence: 'a\u0000b' })).toThrow(
      /new_evidence: contains the control character/,
    );
    await app.keeper.deactivate([m.id]);
    expect(() => app.keeper.reinforce(m.id, { sessionId: null })).toThrow(/is inactive/);
    expect(app.stores.memories.history(m.id).map((h) => h.action)).toEqual([
      'created',
      'deactivated',
    ]);
  });

  it('ranks a more important memory above a less important one of equal relevance', async () => {
    await add('Restart order matters after a power cut', 'low', 'nas');
    await add('Restart order matters after a power cut', 'core', 'router');
    await add('Restart order matters after a power cut', 'normal', 'switch');
    const { results } = await app.knowledge.search.search('restart order after a power cut');
    expect(results.map((r) => [r.memory.service, r.why.importanceWeight])).toEqual([
      ['router', 1.8],
      ['switch', 1],
      ['nas', 0.6],
    ]);
    // Not for lack of relevance: the low one matched at least as well.
    expect(results[2]!.why.relevance).toBeGreaterThanOrEqual(results[0]!.why.relevance);
  });
});
