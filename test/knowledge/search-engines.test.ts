/**
 * Search on PostgreSQL gives what it gives on SQLite: the same memories give the same ids in the
 * same order with the same ranks, whatever the filter. And two instances on one PostgreSQL
 * database search each other's new, edited and deleted memories, by words at once and by meaning
 * once the change is heard.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { openStores, type SearchFilter, type Stores } from '../../src/db/index.js';
import { createKnowledge, ftsQuery, type Knowledge } from '../../src/knowledge/index.js';
import { fakeClock } from '../helpers/clock.js';
import { seedMemory } from '../helpers/db.js';
import { localEmbedder } from '../helpers/knowledge.js';
import { freshDatabaseSync, skipWithoutPostgres } from '../helpers/postgres.js';

skipWithoutPostgres();

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0).reverse()) c();
});

function sqliteStores(): Stores {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-search-'));
  const stores = openStores(join(dir, 'watchkeeper.db'));
  cleanup.push(() => {
    stores.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return stores;
}

/** A fresh PostgreSQL database, and a function opening one instance's stores on it. */
function postgresDatabase(): (instance: string) => Stores {
  const database = freshDatabaseSync();
  cleanup.push(() => database.drop());
  return (instance) => {
    const stores = openStores(database.url, { instance });
    cleanup.push(() => stores.close());
    return stores;
  };
}

/** Waits for a condition that another instance's change makes true (heard within seconds). */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const DAY = 86_400_000;

/** The same history on any store: memories of several services, instances and states. */
function seed(stores: Stores): void {
  const clock = fakeClock();
  const target = { stores, clock };
  const knowledge = createKnowledge({ stores, embedder: null, clock });
  knowledge.services.describe('jellyfin', 'the media server streaming movies', 'operator');
  const rows: [string | null, 'timing' | 'behavior' | 'remediation' | 'maintenance', string][] = [
    ['jellyfin', 'timing', 'jellyfin takes 60 s to start after a restart'],
    ['jellyfin', 'behavior', 'transcoding stalls when the cache disk is full'],
    ['jellyfin', 'remediation', 'restart jellyfin after the NFS mount comes back'],
    ['postgresql', 'maintenance', 'vacuum runs nightly and slows queries for ten minutes'],
    ['postgresql', 'behavior', 'the disk fills with WAL when replication stalls'],
    ['caddy', 'behavior', 'certificate renewal fails when port 80 is blocked'],
    ['caddy', 'remediation', 'restart caddy to reload certificates after renewal'],
    [null, 'behavior', 'the disk of the NAS is nearly full on Sundays after backups'],
    ['nginx', 'timing', 'nginx restart takes a second; restart it before caddy'],
    ['home-net', 'behavior', 'network configuration resets after firmware upgrades'],
    ['jellyfin', 'behavior', 'the media library scan is slow when the disk is busy'],
    ['postgresql', 'remediation', 'restart postgresql only after the disk has room again'],
  ];
  const ids: number[] = [];
  for (const [service, category, observation] of rows) {
    ids.push(seedMemory(target, { service, category, observation }).id);
    clock.advance(DAY);
  }
  // Edited, deactivated, deleted, another instance's, a conversation's, and a new description.
  const at = clock.now();
  stores.memories.change([
    {
      id: ids[1]!,
      action: 'edited',
      confidence: 0.7,
      active: true,
      observation: 'transcoding stalls and restarts when the cache disk is full',
      at,
    },
    { id: ids[4]!, action: 'deactivated', confidence: 0.2, active: false, at },
  ]);
  stores.memories.remove([ids[7]!], clock.now());
  stores.db.prepare("UPDATE memories SET instance = 'other' WHERE id = ?").run(ids[8]!);
  stores.db.prepare("UPDATE memories SET scope = 'conv:1' WHERE id = ?").run(ids[10]!);
  knowledge.services.describe('caddy', 'the web server and TLS front door', 'operator');
}

describe('search on PostgreSQL and SQLite', () => {
  it('gives the same ids in the same order, with the same ranks', async () => {
    const lite = sqliteStores();
    const pg = postgresDatabase()('local');
    seed(lite);
    seed(pg);

    const queries = [
      'jellyfin restart',
      'disk full',
      'media server',
      'restart',
      'certificate renewal',
      'web server',
      'vacuum slows queries',
      'the disk',
    ];
    const filters: SearchFilter[] = [
      {},
      { status: 'all' },
      { status: 'inactive' },
      { service: 'jellyfin' },
      { service: null },
      { category: 'remediation' },
      { since: fakeClock().now() + 3 * DAY },
      { scopes: ['ops'] },
      { scopes: ['conv:1'] },
      { visibleTo: 'local' },
    ];
    let compared = 0;
    for (const q of queries) {
      for (const filter of filters) {
        for (const limit of [1, 3, 50]) {
          const expected = lite.search.lexical(ftsQuery(q), filter, limit);
          const actual = pg.search.lexical(ftsQuery(q), filter, limit);
          const where = `${q} ${JSON.stringify(filter)} limit ${limit}`;
          expect(
            actual.map((h) => h.id),
            where,
          ).toEqual(expected.map((h) => h.id));
          actual.forEach((h, i) => expect(h.bm25, where).toBeCloseTo(expected[i]!.bm25, 9));
          compared += expected.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(100);

    // And what the knowledge layer makes of them: the same answers.
    const search = (stores: Stores) =>
      createKnowledge({ stores, embedder: null, clock: fakeClock() }).search;
    for (const q of queries) {
      const [a, b] = [await search(lite).search(q), await search(pg).search(q)];
      expect(
        b.results.map((r) => r.memory.id),
        q,
      ).toEqual(a.results.map((r) => r.memory.id));
    }
  });
});

describe('search on PostgreSQL with a narrow filter', () => {
  it('finds the few matches within it behind many better ones outside, as SQLite does', () => {
    const stores = [sqliteStores(), postgresDatabase()('local')];
    for (const s of stores) {
      const clock = fakeClock();
      for (let i = 0; i < 150; i += 1) {
        seedMemory(
          { stores: s, clock },
          { service: 'nas', category: 'behavior', observation: `disk ${i} full` },
        );
      }
      for (const observation of ['the disk of the media box is slow', 'disk quota reached']) {
        const id = seedMemory(
          { stores: s, clock },
          { service: 'nas', category: 'behavior', observation },
        ).id;
        s.db.prepare("UPDATE memories SET scope = 'conv:2' WHERE id = ?").run(id);
      }
    }
    const [lite, pg] = stores.map((s) =>
      s!.search.lexical(ftsQuery('disk'), { scopes: ['conv:2'] }, 5),
    );
    expect(lite!.map((h) => h.id)).toEqual([152, 151]);
    expect(pg!.map((h) => h.id)).toEqual(lite!.map((h) => h.id));
    pg!.forEach((h, i) => expect(h.bm25).toBeCloseTo(lite![i]!.bm25, 9));
  });
});

describe('search on PostgreSQL inside a transaction', () => {
  it('sees what the transaction wrote, and forgets it when the transaction is rolled back', () => {
    const stores = postgresDatabase()('local');
    const add = (observation: string) =>
      seedMemory({ stores }, { service: 'edge-7', category: 'behavior', observation }).id;
    const find = (word: string) =>
      stores.search.lexical(ftsQuery(word), { status: 'all' }, 10).map((h) => h.id);
    const rolledBack = (fn: () => void) =>
      expect(
        stores.db.transaction(() => {
          fn();
          throw new Error('rolled back');
        }),
      ).toThrow('rolled back');

    // The first search of all inside the transaction, then one after the first.
    rolledBack(() => {
      const id = add('alpha renewal');
      expect(find('alpha')).toEqual([id]);
    });
    expect(find('alpha')).toEqual([]);
    const kept = add('bravo renewal');
    expect(find('bravo')).toEqual([kept]);
    rolledBack(() => {
      stores.db.prepare("UPDATE memories SET observation = 'charlie' WHERE id = ?").run(kept);
      expect(find('charlie')).toEqual([kept]);
      expect(find('bravo')).toEqual([]);
    });
    expect(find('charlie')).toEqual([]);
    expect(find('bravo')).toEqual([kept]);
    expect(find('renewal')).toEqual([kept]);
  });
});

describe('two instances on one PostgreSQL database', () => {
  it("find what the other's transaction wrote once it commits, however late", () => {
    const open = postgresDatabase();
    const [one, two] = [open('cluster-a'), open('cluster-b')];
    const find = (stores: Stores, word: string) =>
      stores.search.lexical(ftsQuery(word), { status: 'all' }, 10).map((h) => h.id);
    const add = (stores: Stores, observation: string) =>
      seedMemory({ stores }, { service: 'edge-7', category: 'behavior', observation }).id;
    expect(find(two, 'renewal')).toEqual([]);
    let early = 0;
    let late = 0;
    one.db.transaction(() => {
      late = add(one, 'late renewal');
      // Another transaction commits first, and the other instance reads in between.
      early = add(two, 'early renewal');
      expect(find(two, 'renewal')).toEqual([early]);
    })();
    expect(find(two, 'renewal').sort((a, b) => a - b)).toEqual([late, early]);
  });

  it('read new vectors only after one was written here or heard of from the other', async () => {
    const open = postgresDatabase();
    const [one, two] = [open('cluster-a'), open('cluster-b')];
    const memory = (stores: Stores) =>
      seedMemory({ stores }, { service: 'edge-7', category: 'behavior', observation: 'slow' }).id;
    const vector = (id: number) => [
      { memoryId: id, vector: Buffer.from(new Float32Array(4).buffer) },
    ];
    const watch = two.search.vectorWatch();
    // Once this instance listens, nothing new: no need to read.
    expect(
      await eventually(
        async () => watch(),
        (changed) => !changed,
      ),
    ).toBe(false);

    two.search.putVectors(vector(memory(two)), 'test-model', 4, Date.now());
    expect(watch()).toBe(true);
    expect(watch()).toBe(false);

    one.search.putVectors(vector(memory(one)), 'test-model', 4, Date.now());
    expect(
      await eventually(
        async () => watch(),
        (changed) => changed,
      ),
    ).toBe(true);
    expect(watch()).toBe(false);
  });

  it("search each other's new, edited and deleted memories", async () => {
    const open = postgresDatabase();
    const [one, two] = [open('cluster-a'), open('cluster-b')];
    const embedder = localEmbedder();
    const shared = { memoryServices: ['edge-7', 'home-net'] };
    const knowledge = (stores: Stores): Knowledge =>
      createKnowledge({ stores, embedder, clock: fakeClock(), fleet: shared });
    const [a, b] = [knowledge(one), knowledge(two)];
    const found = (k: Knowledge, q: string) => async () =>
      (await k.search.search(q)).results.map((r) => r.memory.observation);

    // b searches first, so that its indexes exist before a writes.
    expect(await found(b, 'certificate renewal')()).not.toContain(
      'certificate renewal fails when port 80 is blocked',
    );
    const learned = await a.memory.observe({
      service: 'edge-7',
      category: 'behavior',
      observation: 'certificate renewal fails when port 80 is blocked',
      sessionId: null,
      tier: 1,
    });
    expect(learned.memory.instance).toBe('fleet');
    expect(await eventually(found(b, 'certificate renewal'), (r) => r.length === 1)).toEqual([
      'certificate renewal fails when port 80 is blocked',
    ]);

    // By meaning only: b's vector index reads a's new vector once the change is heard.
    await a.memory.observe({
      service: 'home-net',
      category: 'behavior',
      observation: 'network configuration resets after firmware upgrades',
      sessionId: null,
      tier: 1,
    });
    const byMeaning = await eventually(
      () => b.search.search('WiFi keeps dropping'),
      (r) => typeof r.results[0]?.why.cosine === 'number' && r.results[0].why.lexicalRank === null,
    );
    expect(byMeaning.mode).toBe('hybrid');
    expect(byMeaning.results[0]?.memory.observation).toBe(
      'network configuration resets after firmware upgrades',
    );

    await a.memory.edit(learned.memory.id, {
      observation: 'the backup job writes to the wrong bucket',
    });
    expect(await eventually(found(b, 'backup bucket'), (r) => r.length === 1)).toEqual([
      'the backup job writes to the wrong bucket',
    ]);
    expect(await found(b, 'certificate renewal')()).not.toContain(
      'certificate renewal fails when port 80 is blocked',
    );

    await a.memory.remove([learned.memory.id]);
    expect(await eventually(found(b, 'backup bucket'), (r) => r.length === 0)).toEqual([]);

    // And the other way round.
    await b.memory.observe({
      service: 'edge-7',
      category: 'remediation',
      observation: 'open port 80 during renewals',
      sessionId: null,
      tier: 1,
    });
    const back = await eventually(found(a, 'renewals port'), (r) => r.length > 0);
    expect(back[0]).toBe('open port 80 during renewals');
  });
});
