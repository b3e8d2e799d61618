/**
 * `sessions list` and `events list` of a store several instances write to: `--instance` and the
 * INSTANCE column.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { openStores } from '../../src/db/index.js';
import { cliIn } from '../helpers/cli.js';
import { fakeClock } from '../helpers/clock.js';

const clock = fakeClock();
const cli = cliIn(undefined, clock);
afterEach(() => rmSync(cli.dataDir, { recursive: true, force: true }));

function seedAs(instance: string, message: string) {
  const stores = openStores(join(cli.dataDir, 'watchkeeper.db'), { instance });
  try {
    const sessionId = stores.sessions.start({
      trigger: 'scheduled',
      tier: 1,
      startedAt: clock.now(),
    });
    stores.events.insert({
      sessionId,
      source: 'agent',
      level: 'info',
      service: 'db',
      message,
      createdAt: clock.now(),
    });
  } finally {
    stores.close();
  }
}

describe('--instance', () => {
  it('lists only the sessions and events of that instance, and names it on each row', async () => {
    seedAs('cluster-a', 'from a');
    seedAs('cluster-b', 'from b');
    const sessions = JSON.parse(
      (await cli.run(['sessions', 'list', '--instance', 'cluster-b', '--json'])).stdout,
    ) as { instance: string }[];
    expect(sessions.map((s) => s.instance)).toEqual(['cluster-b']);
    const events = JSON.parse(
      (await cli.run(['events', 'list', '--instance', 'cluster-a', '--json'])).stdout,
    ) as { message: string; instance: string }[];
    expect(events).toMatchObject([{ message: 'from a', instance: 'cluster-a' }]);

    const table = (await cli.run(['events', 'list'])).stdout;
    expect(table).toMatch(/SESSION +INSTANCE +MESSAGE/);
    expect(table).toMatch(/ cluster-b +from b/);
    expect((await cli.run(['sessions', 'list'])).stdout).toMatch(/ cluster-a\s*$/m);

    const bad = await cli.run(['sessions', 'list', '--instance', 'no way']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--instance must be an instance name');
    expect((await cli.run(['events', 'list', '--instance', 'no way'])).stderr).toContain(
      '--instance must be an instance name',
    );
  });
});
