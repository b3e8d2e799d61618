/**
 * pgvector, where the test server can install it (an operator's `CREATE EXTENSION vector`):
 * detected when the store opens, the vectors stored before it filled in, and the vector list
 * answered by PostgreSQL with the same memories and cosines as this process's own index over the
 * same vectors (a SQLite store beside it). Debian's PostgreSQL packages do not ship pgvector, so
 * on a server without it every test here is skipped with that reason.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { openStores, type Stores } from '../../src/db/index.js';
import type { Embedder } from '../../src/embed/index.js';
import { createKnowledge, type Knowledge } from '../../src/knowledge/index.js';
import { dot, fromBlob, normalise, toBlob } from '../../src/memory/index.js';
import { fakeClock } from '../helpers/clock.js';
import {
  type AsyncFreshDatabase,
  freshDatabase,
  postgresAvailable,
  postgresOffReason,
} from '../helpers/postgres.js';
import { TEMPLATE_DB } from '../helpers/pg-tools.js';

const DIM = 64;
const MODEL = 'test-words-64';
const AT = Date.UTC(2026, 0, 1);

/** A word's vector: seeded by its letters, so that texts sharing words are close. */
function wordVector(word: string): Float32Array {
  let seed = 2166136261;
  for (const c of word) seed = Math.imul(seed ^ c.charCodeAt(0), 16777619) >>> 0;
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i += 1) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    v[i] = seed / 2 ** 32 - 0.5;
  }
  return v;
}

function embed(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const w of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    const u = wordVector(w);
    for (let i = 0; i < DIM; i += 1) v[i]! += u[i]!;
  }
  return normalise(v);
}

/** An embedder whose vectors are the sums of word vectors (a fake at the model's seam). */
const wordsEmbedder: Embedder = {
  backend: 'local',
  model: MODEL,
  dimension: DIM,
  embedQueries: async (texts) => texts.map(embed),
  embedDocuments: async (texts) => texts.map(embed),
  warmUp: async () => {},
  close: async () => {},
};

const WORDS = 'disk scrub backup restart certificate cache queue replica vacuum snapshot'.split(
  ' ',
);

/** The i-th memory's text: words of WORDS, so that many are close to a query. */
const textOf = (i: number) =>
  `${WORDS[i % 10]} ${WORDS[(i * 7) % 10]} after ${WORDS[(i * 3) % 10]} ${i}`;

/**
 * `n` memories of four services, each with its vector, in one statement each; one in 30 another
 * instance's when `others` (this instance's search then counts what it sees, and compares those
 * few exactly).
 */
async function seed(url: string, n: number, others = false): Promise<void> {
  const texts = Array.from({ length: n }, (_, i) => textOf(i));
  await onServer(
    url,
    `INSERT INTO memories (service, category, observation, confidence, base_confidence, active,
       pinned, created_at, updated_at, last_reinforced_at, tier, next_decay_at, instance)
     SELECT (ARRAY['nas', 'jellyfin', 'postgres', 'traefik'])[i % 4 + 1], 'behavior', t, 0.7,
       0.7, 1, 0, ${AT}, ${AT}, ${AT}, 1, ${AT + 1e12},
       CASE WHEN $2 AND i % 30 = 0 THEN 'other' ELSE 'local' END
     FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i)`,
    [texts, others],
  );
  await onServer(
    url,
    `INSERT INTO memory_vectors (memory_id, model, dimension, vector, created_at)
     SELECT m.id, '${MODEL}', ${DIM}, x.v, ${AT} FROM unnest($1::text[], $2::bytea[]) AS x(t, v)
     JOIN memories m ON m.observation = x.t`,
    [texts, texts.map((t) => toBlob(embed(t)))],
  );
}

async function onServer(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** Whether the test server can install pgvector (checked once). */
let installable: boolean | null = null;

let database: AsyncFreshDatabase;
const opened: Stores[] = [];
const open = (target: string): Stores => {
  const stores = openStores(target);
  opened.push(stores);
  return stores;
};
const knowledgeOf = (stores: Stores): Knowledge =>
  createKnowledge({ stores, embedder: wordsEmbedder, clock: fakeClock(AT) });

beforeEach(async (ctx) => {
  if (!postgresAvailable()) return ctx.skip(postgresOffReason());
  database = await freshDatabase({ template: TEMPLATE_DB });
  installable ??=
    (await onServer(database.url, `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`))
      .rowCount === 1;
  if (!installable) {
    await database.drop();
    return ctx.skip('the test server has no pgvector to install (Debian does not package it)');
  }
});

afterEach(async () => {
  for (const s of opened.splice(0)) s.close();
  await database?.drop();
});

describe('pgvector', () => {
  it('is detected when the store opens, and the vectors stored before it are filled in', async () => {
    const before = open(database.url);
    await seed(database.url, 120);
    expect(before.search.vectorsInDatabase).toBe(false);
    before.close();

    await onServer(database.url, 'CREATE EXTENSION vector');
    const after = open(database.url);
    expect(after.search.vectorsInDatabase).toBe(true);
    const rows = (
      await onServer(
        database.url,
        'SELECT vector, embedding::text AS embedding FROM memory_vectors ORDER BY id',
      )
    ).rows as { vector: Buffer; embedding: string | null }[];
    expect(rows).toHaveLength(120);
    for (const r of rows) {
      // Exactly the stored float32 values.
      const parsed = Float32Array.from(JSON.parse(r.embedding!) as number[]);
      expect(parsed).toEqual(fromBlob(r.vector));
    }
  });

  it('answers the nearest memories and their cosines, from its index or compared exactly', async () => {
    await onServer(database.url, 'CREATE EXTENSION vector');
    // More than a search compares exactly: the unfiltered list comes from the HNSW index.
    const n = 5_200;
    await seed(database.url, n);
    const stores = open(database.url);
    const k = knowledgeOf(stores);
    await k.search.prepare();
    const index = await onServer(
      database.url,
      `SELECT indexname FROM pg_indexes WHERE tablename = 'memory_vectors' AND indexname LIKE '%hnsw%'`,
    );
    expect(index.rows).toEqual([{ indexname: `memory_vectors_hnsw_${DIM}` }]);

    const services = ['nas', 'jellyfin', 'postgres', 'traefik'];
    /** The first ten by cosine, each compared here. */
    const exact = (query: string, service?: string) => {
      const q = embed(query);
      return Array.from({ length: n }, (_, i) => i)
        .filter((i) => service === undefined || services[(i + 1) % 4] === service)
        .map((i) => ({ text: textOf(i), cosine: dot(q, embed(textOf(i))) }))
        .sort((a, b) => b.cosine - a.cosine)
        .slice(0, 10)
        .map((r) => [r.text, r.cosine.toFixed(5)]);
    };
    const listed = async (query: string, service?: string) =>
      (
        await k.search.search(query, {
          only: 'semantic',
          limit: 10,
          includeBelowThreshold: true,
          ...(service ? { service } : {}),
        })
      ).results.map((r) => [r.memory.observation, r.why.cosine!.toFixed(5)]);
    // By service: every one of the service's memories compared exactly, so the exact first ten.
    expect(await listed('replica vacuum snapshot', 'postgres')).toEqual(
      exact('replica vacuum snapshot', 'postgres'),
    );
    // Unfiltered, from the HNSW index, which is approximate (how much of the exact first ten it
    // finds is the fleet bench's figure): a memory's own words find it first, and each cosine is
    // the exact one, best first.
    for (const i of [17, 2_345, 5_199]) {
      const got = await listed(textOf(i));
      expect(got[0]).toEqual([textOf(i), '1.00000']);
      const q = embed(textOf(i));
      for (const [text, cosine] of got) expect(cosine).toBe(dot(q, embed(text!)).toFixed(5));
      const cosines = got.map(([, c]) => Number(c));
      expect(cosines).toEqual([...cosines].sort((a, b) => b - a));
    }
  });

  it('never answers a deleted memory, one whose text changed, or another instance’s', async () => {
    await onServer(database.url, 'CREATE EXTENSION vector');
    await seed(database.url, 120, true);
    const stores = open(database.url);
    const k = knowledgeOf(stores);
    await k.search.prepare();
    const ids = async (query: string) =>
      (
        await k.search.search(query, { only: 'semantic', limit: 50, includeBelowThreshold: true })
      ).results.map((r) => r.memory.id);
    const first = await ids('disk scrub after backup');
    const [deleted, edited] = first;
    stores.db.prepare('DELETE FROM memories WHERE id = ?').run(deleted);
    stores.db.prepare('UPDATE memories SET observation = ? WHERE id = ?').run('rewritten', edited);
    const again = await ids('disk scrub after backup');
    expect(again).not.toContain(deleted);
    // Its vector went with the old text; it is pending until embedded again.
    expect(again).not.toContain(edited);
    const others = stores.db
      .prepare(`SELECT id FROM memories WHERE instance = 'other'`)
      .all()
      .map((r) => (r as { id: number }).id);
    expect(others.length).toBeGreaterThan(0);
    for (const id of others) expect(again).not.toContain(id);
  });

  it('is gone with the extension: vectors are written as before, and searched here', async () => {
    await onServer(database.url, 'CREATE EXTENSION vector');
    await seed(database.url, 120);
    open(database.url).close();
    await onServer(database.url, 'DROP EXTENSION vector CASCADE');
    const stores = open(database.url);
    expect(stores.search.vectorsInDatabase).toBe(false);
    stores.db.prepare('DELETE FROM memory_vectors').run();
    const k = knowledgeOf(stores);
    await k.search.prepare();
    expect(await k.pending.catchUp()).toBe(120);
    const answer = await k.search.search('disk scrub after backup', { only: 'semantic' });
    expect(answer.results.length).toBeGreaterThan(0);
  });

  it('leaves the search on its own index, and says why, when the setup is refused', async () => {
    await onServer(database.url, 'CREATE EXTENSION vector');
    // A role that may read and write every table but owns none of them.
    const role = `${database.name}_user`;
    await onServer(
      database.url,
      `CREATE ROLE ${role} LOGIN;
       GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role};
       GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role};
       GRANT USAGE, CREATE ON SCHEMA public TO ${role}`,
    );
    try {
      const asRole = database.url.replace('://postgres@', `://${role}@`);
      const stores = open(asRole);
      expect(stores.search.vectorsInDatabase).toBe(false);
      expect(stores.notices).toEqual([
        expect.stringMatching(
          /^pgvector is installed in the database but could not be set up.*owner/,
        ),
      ]);
      stores.close();
    } finally {
      await database.drop();
      await onServer(database.url.replace(/\/[^/]+$/, '/postgres'), `DROP ROLE ${role}`);
    }
  });
});
