/**
 * On PostgreSQL each instance searches a local full-text copy of the memories. `serve` loads it
 * at start without stopping its event loop (`warmTextSearch`): the rows are awaited a page at a
 * time and written a batch per turn of the loop, so that neither the dashboard nor a running
 * session's stream waits for every memory's text to cross the network; the first search then
 * finds it loaded. A search that needs the copy before the warm-up ends loads it itself, and the
 * warm-up stops without writing a row twice.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { openStores, type Stores, warmTextSearch } from '../../src/db/index.js';
import type { PostgresDb } from '../../src/db/postgres/database.js';
import { localTextIndex } from '../../src/db/postgres/local-text-index.js';
import { createKnowledge } from '../../src/knowledge/index.js';
import { fakeClock } from '../helpers/clock.js';
import {
  migratedDatabaseSync,
  skipWithoutPostgres,
  type SyncFreshDatabase,
} from '../helpers/postgres.js';

skipWithoutPostgres();

/** More than two of the warm-up's batches. */
const MEMORIES = 1_200;
const AT = Date.UTC(2026, 0, 1);

let database: SyncFreshDatabase;
let reader: Stores;
beforeEach(() => {
  database = migratedDatabaseSync();
  // Another process of the same instance wrote them, in one statement.
  const writer = openStores(database.url);
  writer.db.exec(`INSERT INTO memories (service, category, observation, confidence,
      base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, tier,
      next_decay_at, instance)
    SELECT 'nas', 'behavior', 'check ' || i || ' reports code w' || i || 'x', 0.7, 0.7, 1, 0,
      ${AT}, ${AT}, ${AT}, 0, ${AT + 30 * DAY_MS}, 'local'
    FROM generate_series(1, ${MEMORIES}) i`);
  writer.close();
  reader = openStores(database.url);
});
afterEach(() => {
  reader.close();
  database.drop();
});

const search = (query: string) =>
  createKnowledge({ stores: reader, embedder: null, clock: fakeClock(AT) })
    .search.search(query)
    .then((a) => a.results.map((r) => r.memory.observation));

const localRows = () =>
  (
    localTextIndex(reader.db as PostgresDb)
      .local.prepare('SELECT COUNT(*) AS n FROM memories_fts')
      .get() as { n: number }
  ).n;

describe("warming the memories' full-text copy on PostgreSQL", () => {
  it('loads it while the event loop goes on, and the first search reads no page again', async () => {
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns += 1;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    await warmTextSearch(reader.db);
    spinning = false;
    // One turn at least per batch written and per page awaited.
    expect(turns).toBeGreaterThanOrEqual(Math.ceil(MEMORIES / 500));
    expect(localRows()).toBe(MEMORIES);

    const db = reader.db as PostgresDb;
    const before = db.roundTrips();
    expect(await search('w1111x')).toEqual(['check 1111 reports code w1111x']);
    // Had the search loaded the copy, it would have read the horizon and a page of rows.
    const trips = db.roundTrips() - before;
    const again = db.roundTrips();
    await search('w1112x');
    expect(trips).toBeLessThanOrEqual(db.roundTrips() - again + 1);
  });

  it('stops when a search loaded the copy first, leaving each row once', async () => {
    const warming = warmTextSearch(reader.db);
    expect(await search('w7x')).toEqual(['check 7 reports code w7x']);
    await warming;
    expect(localRows()).toBe(MEMORIES);
    expect(await search('w1200x')).toEqual(['check 1200 reports code w1200x']);
  });
});
