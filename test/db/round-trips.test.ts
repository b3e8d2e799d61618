/**
 * What each memory operation costs in round trips to PostgreSQL: statements sent to the server,
 * counted by the worker (src/db/postgres/worker-main.ts). With the database on another host each
 * is a network round trip, so an operation costs a small number of them whatever its size: a
 * bulk action on 50 memories as many as on 5, a decay step over 50 as over 5, a session's block
 * over 200 memories as over 20. The ceilings are today's counts: an operation that grows past
 * one, or starts to grow with its size, fails here.
 *
 * Counts are taken after the same operation ran once on other rows: the first run of a statement
 * may probe its parameters' types (worker-main.ts), which later runs do not.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { openStores, type Stores } from '../../src/db/index.js';
import { CHANGES_CHANNEL } from '../../src/db/postgres/change-feed.js';
import type { PostgresDb } from '../../src/db/postgres/database.js';
import { createKnowledge, type Knowledge } from '../../src/knowledge/index.js';
import type { Category } from '../../src/memory/index.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { seedMemory } from '../helpers/db.js';
import {
  migratedDatabaseSync,
  skipWithoutPostgres,
  type SyncFreshDatabase,
} from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

skipWithoutPostgres();

let database: SyncFreshDatabase;
let stores: Stores;
let knowledge: Knowledge;
let clock: FakeClock;
beforeEach(() => {
  database = migratedDatabaseSync();
  stores = openStores(database.url, { instance: 'local' });
  clock = fakeClock();
  knowledge = createKnowledge({ stores, embedder: null, clock });
});
afterEach(() => {
  stores.close();
  database.drop();
});

let sentinels = 0;
/**
 * Until this process's change feed has heard every change made so far: a search checks for
 * changes when its table's version moved, and the notifications of earlier writes must not
 * arrive in the middle of a count. Notifications arrive in commit order, so once one sent now
 * is heard, so are they.
 */
async function feedHeardAll(): Promise<void> {
  const db = stores.db as unknown as PostgresDb;
  const table = `sentinel_${(sentinels += 1)}`;
  // A table's version counts its notifications on top of the feed's connections (epochs): the
  // sentinel is heard when its version moves, not when it is above 0.
  const before = db.changes().tableVersion(table);
  db.prepare('SELECT pg_notify(?, ?)').get(CHANGES_CHANNEL, table);
  await waitFor(
    `the change feed to hear ${table}`,
    () => db.changes().tableVersion(table) > before,
  );
}

/**
 * What `cost` answers once the caches have caught up with the writes before it: the least of a
 * few runs. The first runs after new rows read them (in pages), and a reader records its cursor
 * now and then; what an operation itself costs is in every run.
 */
async function steady(cost: () => Promise<number>): Promise<number> {
  await feedHeardAll();
  const runs: number[] = [];
  for (let i = 0; i < 5; i += 1) runs.push(await cost());
  return Math.min(...runs);
}

/** Round trips `fn` costs. */
async function tripsOf(fn: () => unknown): Promise<number> {
  const db = stores.db as unknown as PostgresDb;
  const before = db.roundTrips();
  await fn();
  return db.roundTrips() - before;
}

const WORDS = ['disk', 'queue', 'cache', 'certificate', 'backup', 'replica', 'latency', 'memory'];
let seeded = 0;
/** `n` distinct memories of `service`, each saying something of its own. */
const seed = (n: number, service: string, category: Category = 'behavior') =>
  Array.from({ length: n }, () => {
    seeded += 1;
    const word = WORDS[seeded % WORDS.length]!;
    return seedMemory(
      { stores, clock },
      { service, category, observation: `${word} check ${seeded} reports code ${seeded * 7}` },
    ).id;
  });

const observe = (service: string, observation: string, category: Category = 'timing') =>
  knowledge.memory.observe({ service, category, observation, sessionId: null, tier: 1 });

describe('round trips per memory operation on PostgreSQL', () => {
  it('observes, reinforces, supersedes and edits one memory in a few, however many the service has', async () => {
    const m = knowledge.memory;
    const latest = (service: string) =>
      stores.memories.list({ service, status: 'active', limit: 1 })[0]!.id;
    const costs = async (service: string) => {
      const created = await tripsOf(() => observe(service, 'Takes 60s to start after a restart'));
      const reobserved = await tripsOf(() =>
        observe(service, 'Takes 60s to start after a restart'),
      );
      const superseded = await tripsOf(async () => {
        const outcome = await observe(service, 'Takes 90s to start after a restart');
        expect(outcome.action).toBe('superseded');
      });
      const id = latest(service);
      const reinforced = await tripsOf(() => m.reinforce(id, { sessionId: null }));
      const edited = await tripsOf(() =>
        m.edit(id, { observation: 'Takes 90s to start after a cold restart' }),
      );
      return { created, reobserved, superseded, reinforced, edited };
    };
    await costs('warm-up');
    seed(5, 'small', 'timing');
    seed(50, 'large', 'timing');
    const small = await costs('small');
    const large = await costs('large');
    expect(large).toEqual(small);
    expect(small).toEqual({ created: 8, reobserved: 7, superseded: 13, reinforced: 8, edited: 7 });
  });

  it('observes without ever blocking the event loop on the server', async () => {
    const db = stores.db as unknown as PostgresDb;
    const before = db.blockingRoundTrips();
    const actions = [];
    for (const text of [
      'Takes 60s to start after a restart',
      'Takes 60s to start after a restart',
      'Takes 90s to start after a restart',
      'Transcodes 4K files on the GPU',
    ]) {
      actions.push((await observe('jellyfin', text)).action);
    }
    expect(actions).toEqual(['created', 'reinforced', 'superseded', 'created']);
    expect(db.blockingRoundTrips() - before).toBe(0);
    expect(stores.memories.list({ service: 'jellyfin' }).map((r) => r.observation)).toEqual(
      expect.arrayContaining([
        'Takes 90s to start after a restart',
        'Transcodes 4K files on the GPU',
      ]),
    );
  });

  it('deactivates and deletes 50 memories in as many as 5', async () => {
    const m = knowledge.memory;
    const costs = async (ids: number[]) => ({
      deactivated: await tripsOf(async () => expect(await m.deactivate(ids)).toBe(ids.length)),
      deleted: await tripsOf(async () => expect(await m.remove(ids)).toBe(ids.length)),
    });
    await costs(seed(2, 'warm-up'));
    const five = await costs(seed(5, 'small'));
    const fifty = await costs(seed(50, 'large'));
    expect(fifty).toEqual(five);
    expect(five).toEqual({ deactivated: 6, deleted: 8 });
  });

  it('runs a decay step over 50 due memories in as many as over 5', async () => {
    const step = async (n: number) => {
      seed(n, `decaying-${n}`);
      clock.advance(40 * DAY_MS);
      return tripsOf(async () => expect((await knowledge.memory.decay()).decayed).toBe(n));
    };
    await step(2);
    const five = await step(5);
    const fifty = await step(50);
    expect(fifty).toBe(five);
    expect(five).toBe(5);
  });

  it("builds a session's block over 200 memories in as many as over 20", async () => {
    const block = () =>
      tripsOf(() => knowledge.injection.build({ trigger: 'disk check failing on nas' }, 1_000));
    seed(20, 'nas');
    const twenty = await steady(block);
    seed(180, 'nas');
    const twoHundred = await steady(block);
    expect(twoHundred).toBe(twenty);
    expect(twenty).toBe(9);
  });

  it('ranks a search over the memories of 60 services in as many as over 3', async () => {
    const search = () => tripsOf(() => knowledge.search.search('check reports code'));
    for (let i = 0; i < 3; i += 1) seed(2, `svc-${i}`);
    const three = await steady(search);
    for (let i = 3; i < 60; i += 1) seed(2, `svc-${i}`);
    const sixty = await steady(search);
    expect(sixty).toBe(three);
    expect(three).toBe(3);
    // Once its copy of the text is current, a search waits on none of them, blocked.
    const db = stores.db as unknown as PostgresDb;
    const before = db.blockingRoundTrips();
    expect((await knowledge.search.search('check reports code')).results.length).toBeGreaterThan(0);
    expect(db.blockingRoundTrips() - before).toBe(0);
  });

  it('catches its full-text copy up after a write without blocking, and finds what was written', async () => {
    seed(3, 'nas');
    await knowledge.search.search('check reports code');
    const db = stores.db as unknown as PostgresDb;
    // Written by this process and by another one (a statement of its own, as another instance
    // would write it): the next search reads both changes, awaited.
    await knowledge.memory.add({
      service: 'nas',
      category: 'behavior',
      observation: 'the zebra fan spins',
    });
    const other = openStores(database.url, { instance: 'other' });
    try {
      await other.memories.createAwaited({
        service: 'nas',
        category: 'behavior',
        observation: 'the zebra pool scrubs',
        confidence: 0.7,
        sessionId: null,
        tier: 1,
        at: clock.now(),
        nextDecayAt: clock.now() + DAY_MS,
        scope: 'ops',
        instance: 'local',
      });
    } finally {
      other.close();
    }
    await feedHeardAll();
    const before = db.blockingRoundTrips();
    const found = (await knowledge.search.search('zebra')).results.map((r) => r.memory.observation);
    expect(db.blockingRoundTrips() - before).toBe(0);
    expect(found.sort()).toEqual(['the zebra fan spins', 'the zebra pool scrubs']);

    // Two searches at once after a write: the second waits for the first one's catch-up.
    await knowledge.memory.add({ service: 'nas', category: 'behavior', observation: 'a yak' });
    const both = await Promise.all([
      knowledge.search.search('yak'),
      knowledge.search.search('yak'),
    ]);
    expect(both.map((a) => a.results.map((r) => r.memory.observation))).toEqual([
      ['a yak'],
      ['a yak'],
    ]);
  });

  it('records the memories a session was given, 200 in as many as 5', async () => {
    const session = stores.sessions.start({
      trigger: 'scheduled',
      tier: 1,
      model: 'haiku',
      startedAt: clock.now(),
    });
    const given = (ids: number[]) =>
      tripsOf(() =>
        knowledge.injection.record(
          session,
          ids.map((memoryId) => ({ memoryId, score: 0.5, reason: 'relevant' as const, why: null })),
        ),
      );
    await given(seed(3, 'warm-up'));
    const five = await given(seed(5, 'small'));
    const twoHundred = await given(seed(200, 'large'));
    expect(twoHundred).toBe(five);
    expect(five).toBe(4);
    expect(await stores.surfacing.forSession(session)).toHaveLength(208);
  });
});
