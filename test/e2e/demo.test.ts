/** `watchkeeper serve --demo` (npm run demo): the real CLI against the simulated model, end to end. */
import { afterEach, describe, expect, it } from 'vitest';

import { demoEnv } from '../../src/cli/commands/serve.js';
import { openStores } from '../../src/db/index.js';
import { type DemoServe, startDemoServe } from '../helpers/demo-serve.js';
import { logged } from '../helpers/log-lines.js';

let serve: DemoServe | undefined;
afterEach(() => serve?.cleanUp());

describe('demo mode', () => {
  it('runs every minute in ./demo-data unless told otherwise', () => {
    expect(demoEnv({ ANTHROPIC_API_KEY: 'k', PATH: '/bin' })).toEqual({
      PATH: '/bin',
      WATCHKEEPER_DATA_DIR: './demo-data',
      WATCHKEEPER_SCHEDULE: '* * * * *',
    });
    expect(demoEnv({ WATCHKEEPER_SCHEDULE: 'off' }).WATCHKEEPER_SCHEDULE).toBe('off');
  });

  it('shows a whole chain at start: sessions, events and memories, labelled simulated', async () => {
    const demo = (serve = startDemoServe({ ANTHROPIC_API_KEY: 'must-not-be-used' }));
    await demo.until(() => logged(demo.log(), 'session ended', { session: 3 }));
    expect(demo.log()).toContain('DEMO MODE: sessions run against a SIMULATED model');
    expect(logged(demo.log(), 'session ended', { session: 3, status: 'completed' })).toBe(true);
    expect(await demo.stop()).toBe(0);

    const stores = openStores(demo.dbPath);
    try {
      const sessions = stores.sessions.list();
      expect(sessions.map((s) => [s.tier, s.status, s.simulated])).toEqual([
        [3, 'completed', true],
        [2, 'escalated', true],
        [1, 'escalated', true],
      ]);
      expect(stores.events.list({ source: 'agent' }).length).toBeGreaterThanOrEqual(4);
      // The sessions' own memories (the demo chat's extractions have their own scope).
      expect(await stores.memories.count({ scopes: ['ops'] })).toBe(3);
      expect(await stores.cooldowns.since(0)).toMatchObject([
        { service: 'jellyfin', actionType: 'restart', success: true },
      ]);
    } finally {
      stores.close();
    }
    // Three real CLI sessions one after another: generous, so that a busy machine is no failure.
  }, 180_000);
});
