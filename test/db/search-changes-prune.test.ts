/**
 * On PostgreSQL, each instance's search keeps a local full-text copy and follows search_changes
 * from its cursor. Retention (`watchkeeper prune`, and serve's daily run) deletes the changes
 * every live reader has read; a reader gone longer than a day no longer holds them back, and when
 * it comes back its cursor is older than what was deleted, so it reads its tables whole again
 * rather than miss what changed meanwhile.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { openStores } from '../../src/db/index.js';
import { type PgFleet, pgFleet, type PgInstance } from '../helpers/pg-fleet.js';
import { freshDatabase, skipWithoutPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

skipWithoutPostgres();

let fleet: PgFleet | null = null;
afterEach(() => {
  fleet?.close();
  fleet = null;
});

/** Two processes of one instance on one database (serve and a CLI command beside it). */
function twoProcesses(): [PgInstance, PgInstance] {
  fleet = pgFleet(['cluster-a', 'cluster-a']);
  const [a, b] = fleet.instances;
  return [a!, b!];
}

const add = (i: PgInstance, observation: string) =>
  i.knowledge.memory.add({ service: 'nas', category: 'behavior', observation });

const found = async (i: PgInstance, query: string) =>
  (await i.knowledge.search.search(query)).results.map((r) => r.memory.observation);

/**
 * What `i` finds once it has heard of the other process's last change: another process learns
 * of a change when its notification arrives (the feed is asynchronous), as in serve.
 */
const foundOnceHeard = (i: PgInstance, query: string) =>
  waitFor(`a search for "${query}" to find what the other process wrote`, async () => {
    const observations = await found(i, query);
    return observations.length > 0 ? observations : null;
  });

const changeRows = (i: PgInstance) =>
  (i.stores.db.prepare('SELECT COUNT(*) AS n FROM search_changes').get() as { n: number }).n;

describe('pruning the full-text changes on PostgreSQL', () => {
  it('deletes what every reader has read, and a reader still sees what changes next', async () => {
    const [a, b] = twoProcesses();
    await add(a, 'the nas fan is loud under load');
    // b's first search loads the table and records where it read to.
    expect(await found(b, 'fan')).toEqual(['the nas fan is loud under load']);
    await add(a, 'the nas scrub runs on sundays');
    const before = changeRows(a);
    expect(before).toBe(2);

    // a never searched: only b's cursor counts, and it has passed the first change.
    expect(await a.stores.retention.searchChanges(Date.now())).toBe(1);
    expect(changeRows(a)).toBe(1);
    expect(await foundOnceHeard(b, 'scrub')).toEqual(['the nas scrub runs on sundays']);
    const [fan] = a.stores.memories
      .list({ service: 'nas' })
      .filter((m) => /fan/.test(m.observation));
    await a.knowledge.memory.edit(fan!.id, {
      observation: 'the nas fan was replaced with a quiet one',
    });
    // b learns of a's change when a's notification reaches it, as another process would.
    expect(await foundOnceHeard(b, 'replaced')).toEqual([
      'the nas fan was replaced with a quiet one',
    ]);
    expect(await found(b, 'loud')).toEqual([]);
  });

  it('forgets a reader gone a day, which reads everything again when it comes back', async () => {
    const [a, b] = twoProcesses();
    await add(a, 'the nas fan is loud under load');
    expect(await found(b, 'fan')).toEqual(['the nas fan is loud under load']);
    // While b is away, a changes what b would have to catch up on...
    await add(a, 'jellyfin transcodes on the gpu');
    const [fan] = a.stores.memories.list({ service: 'nas' });
    await a.knowledge.memory.remove([fan!.id]);
    expect(changeRows(a)).toBe(2);
    // ...and a day later retention no longer waits for b: every change goes.
    expect(await a.stores.retention.searchChanges(Date.now() + DAY_MS + 1)).toBe(2);
    expect(changeRows(a)).toBe(0);

    // b's cursor is older than what was deleted: once it hears of a change it reads the table
    // whole again (reading on from its cursor alone, it would never find the new memory).
    expect(await foundOnceHeard(b, 'jellyfin')).toEqual(['jellyfin transcodes on the gpu']);
    expect(await found(b, 'fan')).toEqual([]);
  });

  it('does nothing on SQLite, whose full-text index is the file’s own', async () => {
    const dir = openStores(':memory:');
    try {
      expect(await dir.retention.searchChanges(Date.now())).toBe(0);
    } finally {
      dir.close();
    }
  });

  it("is held back by neither a reader's cursor nor a prune of a transaction in another database", async () => {
    // Another application's long transaction on the same server, with a transaction id.
    const other = await freshDatabase();
    const client = new pg.Client({ connectionString: other.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_current_xact_id()');
      const [a, b] = twoProcesses();
      await add(a, 'the nas fan is loud under load');
      expect(await found(b, 'fan')).toEqual(['the nas fan is loud under load']);
      await add(a, 'the nas scrub runs on sundays');
      // b's cursor passed the first change although the other transaction began before it.
      expect(await a.stores.retention.searchChanges(Date.now())).toBe(1);
      expect(await foundOnceHeard(b, 'scrub')).toEqual(['the nas scrub runs on sundays']);
      expect(await a.stores.retention.searchChanges(Date.now() + DAY_MS + 1)).toBe(1);
      expect(changeRows(a)).toBe(0);
    } finally {
      await client.end();
      await other.drop();
    }
  });
});
