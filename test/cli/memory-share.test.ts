/**
 * Memories of a fleet from the shell: `memories share|unshare ID`, the share rules of
 * WATCHKEEPER_FLEET_MEMORY_SERVICES and _CATEGORIES, `memories list --instance`, and what this
 * instance's `memories search` and `context --query` see.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { openStores, type Stores } from '../../src/db/index.js';
import { DEFAULT_POLICY, nextDecayAt } from '../../src/memory/index.js';
import { cliIn } from '../helpers/cli.js';
import { fakeClock } from '../helpers/clock.js';

const clock = fakeClock();
const cli = cliIn(undefined, clock, {
  WATCHKEEPER_INSTANCE: 'cluster-a',
  WATCHKEEPER_FLEET_MEMORY_SERVICES: 'postgres',
  WATCHKEEPER_FLEET_MEMORY_CATEGORIES: 'dependency',
});
afterEach(() => rmSync(cli.dataDir, { recursive: true, force: true }));

/** A memory another instance wrote into the shared store. */
function written(instance: string, observation: string): number {
  const stores: Stores = openStores(join(cli.dataDir, 'watchkeeper.db'));
  try {
    const at = clock.now();
    return stores.memories.create({
      service: 'redis',
      category: 'behavior',
      observation,
      confidence: 0.8,
      sessionId: null,
      tier: 1,
      at,
      nextDecayAt: nextDecayAt(at, at, DEFAULT_POLICY),
      instance,
    });
  } finally {
    stores.close();
  }
}

const runJson = async (argv: string[]) => {
  const r = await cli.run([...argv, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

describe('watchkeeper memories share|unshare', () => {
  it('writes under this instance, or the fleet by a rule; shares and unshares with --json', async () => {
    const own = await runJson([
      'memories',
      'add',
      '--category',
      'timing',
      '--service',
      'caddy',
      'Caddy reloads in 2s',
    ]);
    expect(own).toMatchObject({ instance: 'cluster-a', shared: false });
    const byService = await runJson([
      'memories',
      'add',
      '--category',
      'timing',
      '--service',
      'postgres',
      'Postgres starts in 10s',
    ]);
    expect(byService).toMatchObject({ instance: 'fleet', shared: true });
    const byCategory = await runJson([
      'memories',
      'add',
      '--category',
      'dependency',
      '--service',
      'jellyfin',
      'Jellyfin needs the NAS',
    ]);
    expect(byCategory).toMatchObject({ instance: 'fleet', shared: true });

    expect(await runJson(['memories', 'share', String(own.id)])).toMatchObject({
      id: own.id,
      instance: 'fleet',
      shared: true,
    });
    expect(await runJson(['memories', 'unshare', String(own.id)])).toMatchObject({
      id: own.id,
      instance: 'cluster-a',
      shared: false,
    });
    const text = await cli.run(['memories', 'share', String(own.id)]);
    expect(text.stdout).toBe(`memory ${own.id} shared with the fleet: every instance sees it\n`);
    expect((await cli.run(['memories', 'share', String(own.id)])).stdout).toBe(
      `memory ${own.id} is already shared with the fleet\n`,
    );
    expect((await cli.run(['memories', 'unshare', String(own.id)])).stdout).toBe(
      `memory ${own.id} unshared: it belongs to cluster-a\n`,
    );
    const history = (await cli.run(['memories', 'history', String(own.id), '--json'])).stdout;
    expect(JSON.parse(history).map((h: { evidence: string | null }) => h.evidence)).toEqual([
      null,
      'shared with the fleet by instance cluster-a (learned by cluster-a)',
      'unshared: kept by instance cluster-a',
      'shared with the fleet by instance cluster-a (learned by cluster-a)',
      'unshared: kept by instance cluster-a',
    ]);

    const missing = await cli.run(['memories', 'share', '999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no memory with id 999');
    expect((await cli.run(['memories', 'unshare'])).code).toBe(2);
  });

  it("lists every instance's memories, filters by --instance, and searches only what this instance sees", async () => {
    written('cluster-b', 'Redis on cluster b keeps no snapshots at all');
    written('fleet', 'Redis snapshots go to the shared bucket');
    written('cluster-a', 'Redis snapshots here run hourly');
    const all = (await cli.run(['memories', 'list', '--json'])).stdout;
    expect(
      JSON.parse(all)
        .map((m: { instance: string }) => m.instance)
        .sort(),
    ).toEqual(['cluster-a', 'cluster-b', 'fleet']);
    const fleet = JSON.parse(
      (await cli.run(['memories', 'list', '--instance', 'fleet', '--json'])).stdout,
    );
    expect(fleet.map((m: { observation: string }) => m.observation)).toEqual([
      'Redis snapshots go to the shared bucket',
    ]);
    const bad = await cli.run(['memories', 'list', '--instance', 'a b']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--instance "a b"');

    const search = (await cli.run(['memories', 'search', 'redis snapshots', '--json'])).stdout;
    expect(search).toContain('shared bucket');
    expect(search).toContain('run hourly');
    expect(search).not.toContain('cluster b');

    const context = await cli.run(['context', '--query', 'redis snapshots']);
    expect(context.stdout).toContain('shared bucket');
    expect(context.stdout).toContain('run hourly');
    expect(context.stdout).not.toContain('cluster b');
  });
});
