/**
 * An import never undoes what was corrected here: a memory deleted, superseded, reworded or
 * merged after the export was taken stays so, and of two memories that say otherwise the newer
 * stays active. On real stores through the CLI in-process (SQLite and PostgreSQL).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { cliIn } from '../helpers/cli.js';
import { type TestApp, testApp } from '../helpers/db.js';

const OFF = { WATCHKEEPER_EMBEDDINGS: 'off' };
const MINUTE = 60_000;

let apps: TestApp[] = [];
afterEach(() => {
  for (const a of apps) a.close();
  apps = [];
});

function app(): TestApp {
  const a = testApp();
  apps.push(a);
  return a;
}

const observe = (a: TestApp, service: string, observation: string) =>
  a.keeper.observe({ service, category: 'timing', observation, sessionId: null, tier: 1 });

const SIXTY = 'jellyfin takes 60 seconds to start after a restart';
const NINETY = 'jellyfin takes 90 seconds to start after a restart';
const CADDY = 'caddy reloads its config on SIGUSR1 without dropping connections';

/** `watchkeeper export [--all]` of the app's store, written to a file; returns its path. */
async function exported(a: TestApp, name: string, all = false): Promise<string> {
  const run = await cliIn(a.dataDir, a.clock, OFF).run(['export', ...(all ? ['--all'] : [])]);
  expect(run.code).toBe(0);
  const file = join(a.dataDir, name);
  writeFileSync(file, run.stdout);
  return file;
}

function active(a: TestApp): string[] {
  return a.stores.memories
    .list({ status: 'active' })
    .map((m) => m.observation)
    .sort();
}

describe('import after corrections here', () => {
  it('does not bring back a deleted memory, nor reactivate a superseded one', async () => {
    const a = app();
    const sixty = await observe(a, 'jellyfin', SIXTY);
    const caddy = await observe(a, 'caddy', CADDY);
    a.clock.advance(MINUTE);
    const file = await exported(a, 'before.jsonl');
    a.clock.advance(MINUTE);
    const ninety = await observe(a, 'jellyfin', NINETY);
    expect(ninety.action).toBe('superseded');
    expect(await a.keeper.remove([caddy.memory.id], 'cli (ops)')).toBe(1);
    const cli = cliIn(a.dataDir, a.clock, OFF);

    const dry = await cli.run(['import', file, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(
      new RegExp(
        `would skip memory "jellyfin takes 60 seconds[^"]*": already here as memory #${sixty.memory.id}, superseded here by memory #${ninety.memory.id}`,
      ),
    );
    expect(dry.stdout).toContain(
      `would skip memory "${CADDY}": deleted here (memory #${caddy.memory.id}, 2026-01-01 00:02 UTC by cli (ops)); not brought back`,
    );
    expect(dry.stdout).toContain('Would create 0, reinforce 0, skip 2, refused 0.');

    const run = await cli.run(['import', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Created 0, reinforced 0, skipped 2, refused 0.');
    expect(run.stdout).toContain('deleted here');
    expect(active(a)).toEqual([NINETY]);
    expect(await a.stores.memories.count({ status: 'all' })).toBe(2);
    // And again: still nothing comes back.
    expect((await cli.run(['import', file])).stdout).toContain('skipped 2');
    expect(active(a)).toEqual([NINETY]);
  });

  it('skips a memory reworded here since the export, and the memories merged here', async () => {
    const a = app();
    const timing = await observe(a, 'jellyfin', SIXTY);
    const one = await observe(a, 'caddy', 'caddy renews certificates 30 days before expiry');
    const two = await observe(a, 'caddy', 'caddy keeps its state under /data/caddy on the host');
    a.clock.advance(MINUTE);
    const file = await exported(a, 'before.jsonl');
    a.clock.advance(MINUTE);
    await a.keeper.edit(timing.memory.id, { observation: NINETY });
    await a.keeper.merge([one.memory.id, two.memory.id], {
      text: 'caddy renews its certificates 30 days before they expire',
    });

    const run = await cliIn(a.dataDir, a.clock, OFF).run(['import', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `skipped memory "${SIXTY}": memory #${timing.memory.id} is this memory, reworded here since (2026-01-01 00:02 UTC): it now says "${NINETY}"`,
    );
    expect(run.stdout).toContain(`memory #${one.memory.id} is this memory, reworded here since`);
    expect(run.stdout).toContain(
      `already here as memory #${two.memory.id}, merged into memory #${one.memory.id} here`,
    );
    expect(run.stdout).toContain('Created 0, reinforced 0, skipped 3, refused 0.');
    expect(active(a)).toEqual(['caddy renews its certificates 30 days before they expire', NINETY]);
  });

  it('keeps the newer of two memories that say otherwise active, whichever store it is in', async () => {
    // Store x learns 60 s and exports; y imports that; then x learns 90 s and exports again.
    const x = app();
    await observe(x, 'jellyfin', SIXTY);
    x.clock.advance(MINUTE);
    const old = await exported(x, 'old.jsonl');
    const y = app();
    y.clock.set(x.clock.now());
    const yCli = cliIn(y.dataDir, y.clock, OFF);
    expect((await yCli.run(['import', old])).stdout).toContain('Created 1,');
    x.clock.advance(MINUTE);
    await observe(x, 'jellyfin', NINETY);
    x.clock.advance(MINUTE);
    const newer = await exported(x, 'new.jsonl');

    y.clock.set(x.clock.now());
    const dry = await yCli.run(['import', newer, '--dry-run']);
    expect(dry.stdout).toMatch(
      /would create memory "jellyfin takes 90 seconds[^"]*": new; supersedes memory #1 here, which says otherwise and is older/,
    );
    const run = await yCli.run(['import', newer]);
    expect(run.stdout).toContain('new; supersedes memory #1 here');
    expect(active(y)).toEqual([NINETY]);
    const replaced = y.stores.memories.get(1)!;
    expect(replaced.active).toBe(false);
    expect(replaced.supersededBy).toBe(2);

    // A store that learned 90 s after the old export was taken keeps it over the old 60 s.
    const z = app();
    z.clock.set(x.clock.now());
    await observe(z, 'jellyfin', NINETY);
    const zRun = await cliIn(z.dataDir, z.clock, OFF).run(['import', old]);
    expect(zRun.stdout).toMatch(
      /skipped memory "jellyfin takes 60 seconds[^"]*": says otherwise than memory #1 here, which is newer \(2026-01-01 00:03 UTC, this one 2026-01-01 00:00 UTC\); the newer stays/,
    );
    expect(active(z)).toEqual([NINETY]);
    expect(await z.stores.memories.count({ status: 'all' })).toBe(1);
  });
});
