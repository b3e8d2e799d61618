/**
 * `watchkeeper serve --demo` runs conversation memory offline too: the demo chat is summarised
 * and its memories extracted through the gateway, whose backend is the simulated model.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { openStores } from '../../src/db/index.js';
import { DEMO_CONVERSATION_ID } from '../../src/sim/demo-conversation.js';
import { type DemoServe, startDemoServe } from '../helpers/demo-serve.js';
import { logged } from '../helpers/log-lines.js';

let serve: DemoServe | undefined;
afterEach(() => serve?.cleanUp());

describe('demo mode: conversation memory', () => {
  it('summarises the demo chat and extracts its memories with the simulated gateway', async () => {
    const demo = (serve = startDemoServe({ WATCHKEEPER_EMBEDDINGS: 'off' }));
    // Opened once serve has migrated the database (two migrators at once could race).
    await demo.until(() => /watchkeeper serving/.test(demo.log()));
    const stores = openStores(demo.dbPath);
    try {
      const extracted = () =>
        stores.memories.list({ status: 'all' }).filter((m) => m.source === 'conversation');
      await demo.until(() => extracted().length > 0);
      const summaries = await stores.summaries.history(DEMO_CONVERSATION_ID);
      expect(summaries.some((s) => s.status === 'completed')).toBe(true);
      expect(extracted().length).toBeGreaterThan(0);
      expect(extracted()[0]!.sourceRef).toMatch(/^conversation demo-chat #\d+-\d+$/);
      const job = (await stores.gatewayJobs.list({ kind: 'summary' }))[0]!;
      expect(job).toMatchObject({ backend: 'anthropic', outcome: 'ok' });
      expect(logged(demo.log(), 'conversation summarised', { conversation: 'demo-chat' })).toBe(
        true,
      );
    } finally {
      stores.close();
    }
    expect(await demo.stop()).toBe(0);
  });
});
