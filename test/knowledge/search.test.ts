import { afterEach, describe, expect, it } from 'vitest';

import { createEmbedder } from '../../src/embed/index.js';
import { createKnowledge } from '../../src/knowledge/index.js';
import { type KnowledgeApp, knowledgeApp, localEmbedder } from '../helpers/knowledge.js';
import { blockingDuring } from '../helpers/postgres.js';

let app: KnowledgeApp;
afterEach(() => app?.close());

const observe = (
  a: KnowledgeApp,
  service: string | null,
  observation: string,
  category: 'timing' | 'dependency' | 'behavior' | 'remediation' | 'maintenance' = 'behavior',
) => a.knowledge.memory.observe({ service, category, observation, sessionId: null, tier: 1 });

describe('hybrid search with the local model', () => {
  it('finds a memory by meaning when the query shares no word with it', async () => {
    app = knowledgeApp(localEmbedder());
    await observe(app, 'home-net', 'network configuration resets after firmware upgrades');
    await observe(
      app,
      'postgresql',
      'vacuum runs nightly at 02:00 and slows queries for ten minutes',
    );
    await observe(app, 'jellyfin', 'transcoding 4K files needs the GPU passthrough enabled');
    const answer = await app.knowledge.search.search('WiFi keeps dropping');
    expect(answer.mode).toBe('hybrid');
    expect(answer.results[0]?.memory.observation).toBe(
      'network configuration resets after firmware upgrades',
    );
    const why = answer.results[0]!.why;
    expect(why.lexicalRank).toBeNull();
    expect(why.cosine).toBeGreaterThan(0.35);
    expect(why.score).toBeGreaterThan(0);
  });

  it('surfaces nothing for an unrelated query', async () => {
    app = knowledgeApp(localEmbedder());
    await observe(app, 'jellyfin', 'takes about 60 s to come back after a restart');
    const answer = await app.knowledge.search.search('banana bread recipe with walnuts');
    expect(answer.results).toEqual([]);
  });

  it('reinforces a paraphrase instead of storing it twice, whatever its category', async () => {
    app = knowledgeApp(localEmbedder());
    const first = await observe(app, 'jellyfin', 'transcoding stalls when the cache disk is full');
    const again = await observe(
      app,
      'jellyfin',
      'when the cache volume fills up, transcoding stops',
      'maintenance',
    );
    expect(again.action).toBe('reinforced');
    expect(again.memory.id).toBe(first.memory.id);
    expect(again.memory.confidence).toBe(0.8);
    expect(await app.stores.memories.count({ status: 'all' })).toBe(1);
  });

  it('supersedes a memory that a new observation contradicts, with the chain in the history', async () => {
    app = knowledgeApp(localEmbedder());
    const old = await observe(
      app,
      'jellyfin',
      'jellyfin takes 60 s to start after a restart',
      'timing',
    );
    const next = await observe(
      app,
      'jellyfin',
      'jellyfin takes 5 minutes to start after a restart',
      'timing',
    );
    expect(next.action).toBe('superseded');
    expect(next.contradiction?.kind).toBe('duration');
    const before = app.stores.memories.get(old.memory.id)!;
    expect(before.active).toBe(false);
    expect(before.supersededBy).toBe(next.memory.id);
    const history = app.stores.memories.history(old.memory.id);
    expect(history.at(-1)).toMatchObject({ action: 'superseded', relatedMemoryId: next.memory.id });
    const answer = await app.knowledge.search.search('how long does jellyfin take to start');
    expect(answer.results.map((r) => r.memory.id)).toEqual([next.memory.id]);
    const all = await app.knowledge.search.search('how long does jellyfin take to start', {
      status: 'all',
    });
    expect(all.results.map((r) => r.memory.id).sort()).toEqual(
      [old.memory.id, next.memory.id].sort(),
    );
  });

  it('forgets a deleted memory in the same transaction (text and vector)', async () => {
    app = knowledgeApp(localEmbedder());
    // A service the catalog does not describe: its description would match too.
    const a = await observe(app, 'edge-7', 'certificate renewal fails when port 80 is blocked');
    const b = await observe(app, 'edge-7', 'reloads its config without dropping connections');
    expect((await app.knowledge.search.search('certificate renewal')).results).toHaveLength(1);
    await app.knowledge.memory.remove([a.memory.id, b.memory.id]);
    const count = (sql: string) => (app.stores.db.prepare(sql).get() as { n: number }).n;
    // SQLite's full-text table (on PostgreSQL each instance's local copy, read at the next search).
    if (app.stores.db.engine !== 'postgres')
      expect(count('SELECT COUNT(*) AS n FROM memories_fts')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM memory_vectors')).toBe(0);
    expect((await app.knowledge.search.search('certificate renewal')).results).toEqual([]);
  });

  it('finds a service by what it is: "media server" reaches jellyfin through the catalog', async () => {
    app = knowledgeApp(null);
    await observe(app, 'jellyfin', 'library scan stalls when the NFS mount is stale');
    await observe(app, 'caddy', 'library of TLS certificates is kept in /data/caddy');
    const answer = await app.knowledge.search.search('media server');
    expect(answer.results[0]?.memory.service).toBe('jellyfin');
    app.knowledge.services.describe('caddy', 'the media server front door', 'operator');
    const again = await app.knowledge.search.search('front door');
    expect(again.results.map((r) => r.memory.service)).toEqual(['caddy']);
  });
});

describe('without embeddings', () => {
  it('searches, dedups and supersedes lexically with WATCHKEEPER_EMBEDDINGS=off', async () => {
    app = knowledgeApp(null);
    const a = await observe(app, 'jellyfin', 'jellyfin takes 60 s to start after a restart');
    expect(
      (await observe(app, 'jellyfin', 'Jellyfin takes 60 s to start after restart')).action,
    ).toBe('reinforced');
    const c = await observe(app, 'jellyfin', 'jellyfin takes 300 s to start after a restart');
    expect(c.action).toBe('superseded');
    expect(app.stores.memories.get(a.memory.id)!.active).toBe(false);
    const answer = await app.knowledge.search.search('start after restart');
    expect(answer.mode).toBe('lexical');
    expect(answer.results.map((r) => r.memory.id)).toEqual([c.memory.id]);
  });

  it('keeps working with the Ollama backend unreachable: stored pending, one system event', async () => {
    const dead = createEmbedder({
      backend: 'ollama',
      url: 'http://127.0.0.1:9', // discard port: nothing listens, the connection is refused
      model: null,
      key: null,
      timeoutMs: 2000,
    });
    app = knowledgeApp(dead);
    await observe(app, 'jellyfin', 'transcoding stalls when /cache is full');
    await observe(app, 'sonarr', 'imports fail while the download folder is read-only');
    const answer = await app.knowledge.search.search('transcoding cache');
    expect(answer.mode).toBe('lexical');
    expect(answer.results[0]?.memory.service).toBe('jellyfin');
    expect(await app.knowledge.pending.pendingCount()).toBe(2);
    const warnings = app.stores.events.list({ source: 'system', level: 'warning' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/Embeddings \(nomic-embed-text\) failed/);
    await dead!.close();
  });

  it('embeds pending memories once the backend answers', async () => {
    app = knowledgeApp(null);
    await observe(app, 'home-net', 'network configuration resets after firmware upgrades');
    // The same store, now with the local model: the memory has no vector yet.
    const knowledge = createKnowledge({
      stores: app.stores,
      embedder: localEmbedder(),
      clock: app.clock,
    });
    expect(await knowledge.pending.pendingCount()).toBe(1);
    expect((await knowledge.search.search('WiFi keeps dropping')).results).toEqual([]);
    // serve runs the catch-up on its event loop every few seconds: it never holds it.
    let embedded = 0;
    const blocked = await blockingDuring(app.stores.db, async () => {
      embedded = await knowledge.pending.catchUp();
    });
    expect({ embedded, blocked }).toEqual({ embedded: 1, blocked: 0 });
    expect(await knowledge.pending.pendingCount()).toBe(0);
    const answer = await knowledge.search.search('WiFi keeps dropping');
    expect(answer.results[0]?.memory.service).toBe('home-net');
  });

  it('builds the session block and answers the hook lexically with the backend off or unreachable', async () => {
    const dead = createEmbedder({
      backend: 'ollama',
      url: 'http://127.0.0.1:9',
      model: null,
      key: null,
      timeoutMs: 2000,
    });
    for (const embedder of [null, dead]) {
      app = knowledgeApp(embedder);
      await observe(app, 'jellyfin', 'returns 5xx errors while the library scan runs');
      await observe(app, 'postgresql', 'vacuum slows queries for ten minutes every night');
      const block = await app.knowledge.injection.build(
        { trigger: 'ALERT: jellyfin 5xx above 5%' },
        2000,
      );
      expect(block.injected[0]).toMatchObject({ reason: 'relevant' });
      expect(block.text.indexOf('library scan')).toBeLessThan(block.text.indexOf('vacuum'));
      const sessionId = app.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: 0 });
      const hook = await app.knowledge.tools.surface(sessionId, {
        toolName: 'Bash',
        toolInput: { command: 'psql -c "select 1"  # postgresql vacuum check' },
        toolResponse: { stdout: 'slow', stderr: '' },
      });
      expect(hook.text).toContain('vacuum slows queries');
      // Not twice in one session.
      const again = await app.knowledge.tools.surface(sessionId, {
        toolName: 'Bash',
        toolInput: { command: 'psql -c "select 1"  # postgresql vacuum check' },
        toolResponse: { stdout: 'slow', stderr: '' },
      });
      expect(again.text).toBe('');
      app.close();
    }
    await dead!.close();
    app = knowledgeApp(null);
  });
});
