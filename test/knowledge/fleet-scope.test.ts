/**
 * Memories in a fleet: a new memory belongs to the instance that learned it, or to the whole
 * fleet when a share rule names its service or category; the operator shares and unshares, with
 * a history entry. A session, the search, the in-session hook and dedup see only this instance's
 * memories and the fleet's.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { FLEET } from '../../src/db/index.js';
import { createKnowledge, type Knowledge } from '../../src/knowledge/index.js';
import { type Category, DEFAULT_POLICY, nextDecayAt } from '../../src/memory/index.js';
import { testApp, type TestApp } from '../helpers/db.js';

let app: TestApp;
afterEach(() => app.close());

/** This instance is cluster-a, with the given share rules. */
function clusterA(fleet: { memoryServices?: string[]; memoryCategories?: string[] } = {}) {
  app = testApp();
  return createKnowledge({
    stores: { ...app.stores, instance: 'cluster-a' },
    embedder: null,
    clock: app.clock,
    fleet,
  });
}

/** A memory written straight to the store under an instance (another sidecar's write). */
function written(
  instance: string,
  observation: string,
  over: { service?: string | null; category?: Category; pinned?: boolean } = {},
) {
  const at = app.clock.now();
  const id = app.stores.memories.create({
    service: over.service === undefined ? 'postgres' : over.service,
    category: over.category ?? 'behavior',
    observation,
    confidence: 0.8,
    sessionId: null,
    tier: 1,
    pinned: over.pinned ?? false,
    at,
    nextDecayAt: nextDecayAt(at, at, DEFAULT_POLICY),
    instance,
  });
  return app.stores.memories.get(id)!;
}

const observe = (k: Knowledge, observation: string, service: string | null, category: Category) =>
  k.memory.observe({ service, category, observation, sessionId: null, tier: 1 });

describe('memory fleet scope', () => {
  it('writes a new memory under this instance, or the fleet when a rule names its service or category', async () => {
    const k = clusterA({ memoryServices: ['Postgres'], memoryCategories: ['dependency'] });
    const own = await observe(k, 'Caddy reloads its config in two seconds', 'caddy', 'timing');
    const byService = await observe(k, 'Vacuum runs every Sunday night', 'postgres', 'behavior');
    const byCategory = await observe(
      k,
      'Jellyfin needs the NAS mounted first',
      'jellyfin',
      'dependency',
    );
    expect(own.memory.instance).toBe('cluster-a');
    expect(byService.memory.instance).toBe(FLEET);
    expect(byCategory.memory.instance).toBe(FLEET);
    // A lone sidecar (no rules, no name) writes `local`, as before.
    const lone = createKnowledge({ stores: app.stores, embedder: null, clock: app.clock });
    const m = await observe(lone, 'Traefik picks up labels on start', 'traefik', 'behavior');
    expect(m.memory.instance).toBe('local');
  });

  it('shares and unshares with a history entry naming the action and the instance', async () => {
    const k = clusterA();
    const m = (await observe(k, 'Caddy reloads its config in two seconds', 'caddy', 'timing'))
      .memory;
    const shared = await k.memory.share(m.id);
    expect(shared.instance).toBe(FLEET);
    // Sharing again changes nothing and writes no history.
    expect((await k.memory.share(m.id)).instance).toBe(FLEET);
    const back = await k.memory.unshare(m.id);
    expect(back.instance).toBe('cluster-a');
    expect((await k.memory.unshare(m.id)).instance).toBe('cluster-a');
    const history = app.stores.memories.history(m.id).map((h) => [h.action, h.evidence]);
    expect(history).toEqual([
      ['created', null],
      ['shared', 'shared with the fleet by instance cluster-a (learned by cluster-a)'],
      ['unshared', 'unshared: kept by instance cluster-a'],
    ]);
    // Unsharing another instance's memory that was shared gives it to this instance.
    const theirs = written('cluster-b', 'Redis keeps its dump in /data');
    await k.memory.share(theirs.id);
    expect((await k.memory.unshare(theirs.id)).instance).toBe('cluster-a');
    await expect(k.memory.share(999_999)).rejects.toThrow(/memory 999999 does not exist/);
  });

  it("keeps another instance's memories out of the session block and the search; the fleet's are in", async () => {
    const k = clusterA();
    written('cluster-a', 'Postgres replication lags behind at night');
    written('cluster-b', 'Postgres backup runs from cron at 2am on cluster b');
    written(FLEET, 'Postgres needs max_connections of 200 everywhere');
    written('cluster-b', 'Postgres pinned note of cluster b', { pinned: true });

    const built = await k.injection.build({ trigger: 'postgres is slow' }, 2000);
    const block = built.text;
    expect(block).toContain('replication lags');
    expect(block).toContain('max_connections');
    expect(block).not.toContain('cluster b');
    // Counted among the eligible neither.
    expect(block).toContain('(2 of 2 memories');
    expect(built.totalEligible).toBe(2);

    for (const status of ['active', 'all'] as const) {
      const found = (await k.search.search('postgres', { status })).results.map(
        (r) => r.memory.instance,
      );
      expect(found.sort()).toEqual(['cluster-a', FLEET]);
    }
    // The in-session hook (PostToolUse) sees the same.
    const surfaced = await k.tools.surface(null, {
      toolName: 'Bash',
      toolInput: { command: 'pg_dump postgres backup cron' },
      toolResponse: { stdout: 'postgres backup from cron' },
    });
    expect(surfaced.text).not.toContain('cluster b');

    // Shared, the other instance's memory reaches this instance's next block.
    const theirs = app.stores.memories.list({ instance: 'cluster-b', pinned: false })[0]!;
    await k.memory.share(theirs.id);
    const after = (await k.injection.build({ trigger: 'postgres backup' }, 2000)).text;
    expect(after).toContain('cron at 2am');
    // Every instance's memories are in the list (the dashboard's), and filter by instance.
    expect(await app.stores.memories.count({ status: 'all' })).toBe(4);
    expect(app.stores.memories.list({ instance: 'cluster-b' }).map((m) => m.observation)).toEqual([
      'Postgres pinned note of cluster b',
    ]);
    expect(await app.stores.memories.instances()).toEqual(['cluster-a', 'cluster-b', FLEET]);
  });

  it("finds this instance's few memories when hundreds of another instance's match better", async () => {
    const k = clusterA();
    for (let i = 0; i < 450; i += 1) written('cluster-b', `backup backup job ${i}`);
    written('cluster-a', 'The offsite backup drive is in the attic');
    const answer = await k.search.search('backup');
    expect(answer.results.map((r) => r.memory.instance)).toEqual(['cluster-a']);
  });

  it("never reinforces another instance's memory: the same words make this instance's own", async () => {
    const k = clusterA();
    const theirs = written('cluster-b', 'Postgres needs a restart after a minor upgrade');
    const fleet = written(FLEET, 'Redis loses its cache on restart');
    const mine = await observe(
      k,
      'Postgres needs a restart after a minor upgrade',
      'postgres',
      'behavior',
    );
    expect(mine.action).toBe('created');
    expect(mine.memory.instance).toBe('cluster-a');
    expect(app.stores.memories.get(theirs.id)!.confidence).toBe(0.8);
    // A fleet memory is reinforced by whoever observes it again.
    const again = await observe(k, 'Redis loses its cache on restart', 'postgres', 'behavior');
    expect(again.action).toBe('reinforced');
    expect(again.memory.id).toBe(fleet.id);
  });
});
