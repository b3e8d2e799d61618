/** Merging memories: the memory service's operation and `watchkeeper memories merge`. */
import { afterEach, describe, expect, it } from 'vitest';

import { cliIn } from '../helpers/cli.js';
import { seedMemory, type TestApp, testApp } from '../helpers/db.js';

let app: TestApp;
afterEach(() => app?.close());

describe('merge', () => {
  it('keeps every history, the best confidence, the union of provenance, and links the merged', async () => {
    app = testApp();
    const a = seedMemory(app, {
      service: 'jellyfin',
      category: 'timing',
      observation: 'takes a minute to start',
      confidence: 0.6,
      sessionId: null,
      tier: 1,
    });
    app.clock.advance(1000);
    const b = seedMemory(app, {
      service: 'jellyfin',
      category: 'behavior',
      observation: 'slow to come up after restarts',
      confidence: 0.9,
      tier: 2,
    });
    const c = seedMemory(app, {
      service: 'jellyfin',
      category: 'timing',
      observation: 'startup is about 60 s',
      confidence: 0.5,
      pinned: true,
    });
    await app.keeper.setImportance(c.id, 'high');
    const before = [a, b, c].map((m) => app.stores.memories.history(m.id));
    app.clock.advance(1000);

    const { survivor, merged } = await app.keeper.merge([a.id, b.id, c.id]);
    expect(survivor).toMatchObject({
      id: a.id,
      observation: 'takes a minute to start',
      confidence: 0.9,
      active: true,
      pinned: true,
      importance: 'high',
    });
    // Every memory involved keeps its history and gains a `merged` entry.
    [a, b, c].forEach((m, i) => {
      const h = app.stores.memories.history(m.id);
      expect(h.slice(0, before[i]!.length)).toEqual(before[i]);
      expect(h.some((x) => x.action === 'merged')).toBe(true);
    });
    // The survivor's entries carry each merged memory's provenance.
    const entries = app.stores.memories.history(a.id).filter((h) => h.action === 'merged');
    expect(entries.map((h) => h.relatedMemoryId)).toEqual([b.id, c.id]);
    expect(entries[0]!.evidence).toBe(`merged #${b.id} (marker): slow to come up after restarts`);
    expect(entries[1]!.evidence).toBe(`merged #${c.id} (operator): startup is about 60 s`);
    for (const m of merged) {
      expect(m).toMatchObject({ active: false, archiveReason: `merged into #${a.id}` });
      expect(app.stores.portability.mergedInto(m.id)).toBe(a.id);
    }
    expect(app.stores.portability.mergedFrom(a.id)).toEqual([b.id, c.id]);
  });

  it('takes the operator wording and confidence from the CLI, and refuses bad ids changing nothing', async () => {
    app = testApp();
    const a = seedMemory(app, {
      service: 'caddy',
      category: 'maintenance',
      observation: 'renews certs',
      confidence: 0.7,
    });
    const b = seedMemory(app, {
      service: 'caddy',
      category: 'maintenance',
      observation: 'certs renew by themselves',
      confidence: 0.8,
    });
    const cli = cliIn(app.dataDir, app.clock, { WATCHKEEPER_EMBEDDINGS: 'off' });

    const missing = await cli.run(['memories', 'merge', String(a.id), '999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no memory with id 999');
    const one = await cli.run(['memories', 'merge', String(a.id), String(a.id)]);
    expect(one.code).toBe(2);
    expect(app.stores.memories.get(a.id)!.observation).toBe('renews certs');

    const run = await cli.run([
      'memories',
      'merge',
      String(b.id),
      String(a.id),
      '--text',
      'Caddy renews its certificates on its own',
      '--confidence',
      '0.75',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `merged #${a.id} into memory ${b.id} (confidence 0.75, active): Caddy renews its certificates on its own\n`,
    );
    expect(app.stores.memories.get(a.id)!.active).toBe(false);
    expect(app.stores.memories.history(b.id).at(-1)!.action).toBe('merged');
  });
});
