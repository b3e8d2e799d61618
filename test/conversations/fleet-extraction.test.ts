/**
 * Two instances of a fleet, each with its own conversation service and gateway over one shared
 * database, asked to extract the same conversation at the same time: one reads the new messages,
 * the other leaves them to it, so every window is gated once and every memory stored once.
 */
import { afterEach, expect, it } from 'vitest';

import { type Conversations, createConversations } from '../../src/conversations/index.js';
import { createKnowledge } from '../../src/knowledge/index.js';
import { fakeClock } from '../helpers/clock.js';
import { controlledScript, type SimGateway, simGateway } from '../helpers/gateway.js';
import { sharedStores, type SharedStores } from '../helpers/shared-stores.js';

let fleet: SharedStores | undefined;
const gateways: SimGateway[] = [];
const services: Conversations[] = [];
afterEach(async () => {
  for (const c of services.splice(0)) await c.close();
  for (const g of gateways.splice(0)) await g.close();
  fleet?.close();
});

it('one instance extracts a conversation while the other leaves it alone', async () => {
  fleet = sharedStores(['a', 'b']);
  const clock = fakeClock();
  const sim = controlledScript();
  const serviceOf = async (instance: string) => {
    const stores = fleet!.of[instance]!;
    const gw = await simGateway({ stores, clock }, { script: sim.script });
    gateways.push(gw);
    const knowledge = createKnowledge({ stores, embedder: null, clock });
    const service = createConversations({
      stores,
      knowledge,
      gateway: gw.gateway,
      clock,
      options: { extractEveryMessages: 100, extractIntervalMs: 60_000 },
    });
    services.push(service);
    return service;
  };
  const a = await serviceOf('a');
  const b = await serviceOf('b');
  for (const [role, content] of [
    ['user', 'Hi there.'],
    ['assistant', 'Hello! How can I help?'],
    ['user', 'We decided to move the blog to Hugo next month. I prefer tabs over spaces.'],
    ['assistant', 'Noted, Hugo it is.'],
  ] as const) {
    expect((await a.post('c1', { role, content })).kind).toBe('created');
  }

  // a's gate call is held (a holds the claim) while b is asked to extract the same messages.
  sim.hold('gate');
  await a.extractNow('c1');
  await expect.poll(() => sim.count('gate')).toBe(1);
  await b.extractNow('c1');
  await b.idle();
  sim.release('gate');
  await a.idle();

  const stores = fleet.of.b!;
  expect(sim.count('gate')).toBe(1);
  expect(sim.count('extract')).toBe(1);
  expect(await stores.extractions.windows('c1')).toHaveLength(1);
  const memories = stores.memories
    .list({ status: 'all' })
    .filter((m) => m.source === 'conversation');
  expect(memories.map((m) => m.observation).sort()).toEqual([
    'I prefer tabs over spaces.',
    'We decided to move the blog to Hugo next month.',
  ]);
  // Stored once each: nothing reinforced by a second reading.
  expect((await stores.extractions.memories('c1')).map((r) => r.action)).toEqual([
    'created',
    'created',
  ]);
  expect((await stores.conversations.get('c1'))!.extractedThroughSeq).toBe(3);

  // The claim was given back: b extracts what comes next.
  await a.post('c1', { role: 'user', content: 'Also: the staging server is called lark.' });
  await b.extractNow('c1');
  await b.idle();
  expect((await stores.conversations.get('c1'))!.extractedThroughSeq).toBe(4);
});
