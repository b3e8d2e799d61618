/**
 * The memories' vector index kept beside the store: rebuilt from the stored vectors when its file
 * is missing or is not this store's, and never trusted over the store. (On PostgreSQL there is
 * no file: each process builds the index in memory.)
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

import { afterEach, describe, expect, it } from 'vitest';

import { createKnowledge } from '../../src/knowledge/index.js';
import { createAnnIndex } from '../../src/knowledge/vector-ann.js';
import { type KnowledgeApp, knowledgeApp, localEmbedder } from '../helpers/knowledge.js';

const apps: KnowledgeApp[] = [];
afterEach(() => {
  for (const a of apps.splice(0)) a.close();
});

const open = () => {
  const a = knowledgeApp(localEmbedder());
  apps.push(a);
  return a;
};
const observe = (a: KnowledgeApp, service: string, observation: string) =>
  a.knowledge.memory.observe({
    service,
    category: 'behavior',
    observation,
    sessionId: null,
    tier: 1,
  });
/** The knowledge layer of another process on the same store. */
const restart = (a: KnowledgeApp) =>
  createKnowledge({ stores: a.stores, embedder: localEmbedder(), clock: a.clock });
/** Finds by meaning alone: the query shares no word with the memory. */
const byMeaning = async (knowledge: ReturnType<typeof restart>) =>
  (await knowledge.search.search('WiFi keeps dropping')).results.map((r) => r.memory.observation);

const NETWORK = 'network configuration resets after firmware upgrades';

// Services the catalog does not describe: a description would find their memories too.
async function seed(a: KnowledgeApp) {
  await observe(a, 'edge-7', NETWORK);
  await observe(a, 'edge-8', 'vacuum runs nightly at 02:00 and slows queries for ten minutes');
  await observe(a, 'edge-9', 'transcoding 4K files needs the GPU passthrough enabled');
}

describe('the vector index beside the store', () => {
  it('is written beside a SQLite store, and rebuilt when its file is deleted', async () => {
    const app = open();
    await seed(app);
    expect((await byMeaning(app.knowledge))[0]).toBe(NETWORK);
    const file = app.stores.search.vectorIndexFile;
    if (app.stores.db.engine === 'postgres') {
      expect(file).toBeNull();
      expect((await byMeaning(restart(app)))[0]).toBe(NETWORK);
      return;
    }
    expect(existsSync(`${file}.usearch`)).toBe(true);
    rmSync(`${file}.usearch`);
    rmSync(`${file}.json`);
    expect((await byMeaning(restart(app)))[0]).toBe(NETWORK);
    expect(existsSync(`${file}.usearch`)).toBe(true);
  });

  it('rebuilds from the store when the file lacks vectors the store has', async () => {
    const app = open();
    await seed(app);
    const file = app.stores.search.vectorIndexFile;
    if (file) {
      // Another store's file, or one saved before a crash: empty, yet it claims every row.
      const nothing = {
        vectorsSince: () => [],
        lastVectorId: () => 0,
        countVectors: () => 0,
        countAllVectors: () => 0,
      };
      createAnnIndex(nothing, 'use-lite-512', 512, file).refresh();
      const meta = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as { lastId: number };
      meta.lastId = app.stores.search.lastVectorId();
      writeFileSync(`${file}.json`, JSON.stringify(meta));
    }
    expect((await byMeaning(restart(app)))[0]).toBe(NETWORK);
  });

  it('finds neither a memory deleted nor an old text edited since the file was written', async () => {
    const app = open();
    await seed(app);
    const [network] = (await app.knowledge.search.search('WiFi keeps dropping')).results;
    const [vacuum] = (await app.knowledge.search.search('nightly maintenance slows the database'))
      .results;
    await app.knowledge.memory.remove([network!.memory.id]);
    await app.knowledge.memory.edit(vacuum!.memory.id, {
      observation: 'the backup job writes to the wrong bucket',
    });
    const later = restart(app);
    expect(await byMeaning(later)).not.toContain(NETWORK);
    const maintenance = await later.search.search('nightly maintenance slows the database');
    expect(maintenance.results.map((r) => r.memory.id)).not.toContain(vacuum!.memory.id);
    expect((await later.search.search('GPU passthrough')).results).toHaveLength(1);
  });
});
