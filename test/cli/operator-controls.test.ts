/** The operator controls from the shell: `cooldowns list|reset|allow`, and the `sessions list` and `events list` filters. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { MINUTE_MS } from '../../src/clock.js';
import { openStores } from '../../src/db/index.js';
import { cliIn } from '../helpers/cli.js';
import { cooldownRow } from '../helpers/db.js';
import { fakeClock } from '../helpers/clock.js';

const clock = fakeClock();
const cli = cliIn(undefined, clock, { USER: 'carol' });
afterEach(() => rmSync(cli.dataDir, { recursive: true, force: true }));

function seed(fn: (stores: ReturnType<typeof openStores>) => void) {
  const stores = openStores(join(cli.dataDir, 'watchkeeper.db'));
  try {
    fn(stores);
  } finally {
    stores.close();
  }
}

describe('watchkeeper cooldowns', () => {
  it('resets a service in cooldown, recorded as the shell user with the reason', async () => {
    seed((stores) => {
      for (const ago of [20, 10]) {
        stores.cooldowns.insert(cooldownRow({ createdAt: clock.now() - ago * MINUTE_MS }));
      }
    });
    expect((await cli.run(['cooldowns', 'list'])).stdout).toMatch(
      /jellyfin\s+restart\s+2\/2\s+in cooldown/,
    );

    const missing = await cli.run(['cooldowns', 'reset', 'jellyfin']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('reason: is required');

    const reset = await cli.run(['cooldowns', 'reset', 'jellyfin', '--reason', 'disk swapped']);
    expect(reset.code).toBe(0);
    clock.advance(1000);
    const list = await cli.run(['cooldowns', 'list', '--json']);
    const body = JSON.parse(list.stdout) as {
      services: unknown[];
      overrides: { actor: string; reason: string; kind: string }[];
    };
    expect(body.services).toEqual([]);
    expect(body.overrides).toEqual([
      expect.objectContaining({ kind: 'reset', actor: 'cli (carol)', reason: 'disk swapped' }),
    ]);
  });

  it('allows more restarts until a time, refusing a count out of range', async () => {
    const bad = await cli.run([
      'cooldowns',
      'allow',
      'caddy',
      '--count',
      '0',
      '--until',
      '2h',
      '--reason',
      'x',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('count: must be a whole number from 1 to 100');
    const ok = await cli.run([
      'cooldowns',
      'allow',
      'caddy',
      '--count',
      '2',
      '--until',
      '2h',
      '--action',
      'restart',
      '--reason',
      'renewal',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('allowed 2 more restart(s) of caddy');
  });

  it('overrides for this instance, or with --fleet for every instance', async () => {
    const on = (instance: string) =>
      cliIn(cli.dataDir, clock, { USER: 'carol', WATCHKEEPER_INSTANCE: instance });
    const [a, b] = [on('cluster-a'), on('cluster-b')];
    const stores = openStores(join(cli.dataDir, 'watchkeeper.db'), { instance: 'cluster-a' });
    try {
      for (const ago of [20, 10]) {
        stores.cooldowns.insert(cooldownRow({ createdAt: clock.now() - ago * MINUTE_MS }));
      }
    } finally {
      stores.close();
    }
    const inCooldown = /jellyfin\s+restart\s+2\/2\s+in cooldown/;

    const own = await b.run(['cooldowns', 'reset', 'jellyfin', '--reason', 'b only']);
    expect(own.stdout).toContain('no longer count (on instance cluster-b)');
    expect((await a.run(['cooldowns', 'list'])).stdout).toMatch(inCooldown);

    const fleet = await b.run(['cooldowns', 'reset', 'jellyfin', '--fleet', '--reason', 'all']);
    expect(fleet.stdout).toContain('no longer count (on every instance of the fleet)');
    clock.advance(1000);
    const list = await a.run(['cooldowns', 'list']);
    expect(list.stdout).not.toMatch(inCooldown);
    expect(list.stdout).toMatch(/WHO\s+WHY/);
    expect(list.stdout).toMatch(/jellyfin\s+both\s+reset\s+fleet\s+cli \(carol\)\s+all/);
    expect(list.stdout).toMatch(/jellyfin\s+both\s+reset\s+cluster-b\s+cli \(carol\)\s+b only/);
    const body = JSON.parse((await a.run(['cooldowns', 'list', '--json'])).stdout) as {
      overrides: { reason: string; fleet: boolean; instance: string | null }[];
    };
    expect(body.overrides.map((o) => [o.reason, o.fleet, o.instance])).toEqual([
      ['all', true, null],
      ['b only', false, 'cluster-b'],
    ]);
  });
});

describe('watchkeeper sessions list filters', () => {
  it('lists only the sessions the filters match', async () => {
    seed((stores) => {
      stores.sessions.start({ trigger: 'alert', tier: 2, startedAt: clock.now() - MINUTE_MS });
      stores.sessions.start({ trigger: 'scheduled', tier: 1, startedAt: clock.now() });
    });
    const rows = JSON.parse(
      (await cli.run(['sessions', 'list', '--trigger', 'alert', '--json'])).stdout,
    ) as {
      trigger: string;
    }[];
    expect(rows.map((r) => r.trigger)).toEqual(['alert']);
    const bad = await cli.run(['sessions', 'list', '--tier', '7']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tier must be 1, 2 or 3');
  });
});

describe('watchkeeper events list --search', () => {
  it('finds events by words within a quick range', async () => {
    seed((stores) => {
      const base = {
        sessionId: null,
        source: 'agent' as const,
        level: 'warning' as const,
        service: 'nas',
      };
      stores.events.insert({ ...base, message: 'disk 91% full', createdAt: clock.now() });
      stores.events.insert({
        ...base,
        message: 'disk 99% full',
        createdAt: clock.now() - 2 * 86_400_000,
      });
      stores.events.insert({ ...base, message: 'fan speed high', createdAt: clock.now() });
    });
    const rows = JSON.parse(
      (await cli.run(['events', 'list', '--search', 'disk', '--since', '24h', '--json'])).stdout,
    ) as { message: string }[];
    expect(rows.map((r) => r.message)).toEqual(['disk 91% full']);
    const bad = await cli.run(['events', 'list', '--since', '2w']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since must be one of 1h, 24h, 7d, 30d');
  });
});
