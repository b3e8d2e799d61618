/**
 * The Memory graph's pages and API read awaited: on PostgreSQL (this file also runs there) the
 * Graph page, a recall from its box, a conversation, an idea, an entity, a watchkeeper session's
 * topics, /api/v1/graph/remember (with and without `session=`) and /api/v1/graph/stats hold
 * serve's event loop for no statement, so a database a network hop away slows each answer by
 * its round trips but never stalls the other requests, nor a running session's stream and hooks.
 * The embedding model is on, so recall reads vectors too (and the in-memory index loads them).
 * Each is asked twice with more indexed between, so that what is kept in memory is read again.
 */
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { createGraph, type Graph } from '../../src/graph/index.js';
import { silentLogger } from '../../src/log.js';
import { indexQueueOf } from '../../src/web/graph-instance.js';
import { endedSessionWithLog, MAIN, SESSION, SUBAGENT } from '../helpers/graph.js';
import { localEmbedder } from '../helpers/knowledge.js';
import { blockingDuring } from '../helpers/postgres.js';
import { type SignedIn, TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
let graph: Graph;
beforeEach(async () => {
  h = webHarness({ embedder: localEmbedder() });
  auth = await h.login();
  // Indexed by another graph than the dashboard's, as by another process: the dashboard's own
  // in-memory vector index starts empty and loads what was stored.
  graph = createGraph({
    db: h.stores.db,
    embedding: h.knowledge.embedding,
    clock: h.clock,
    dataDir: h.dataDir,
    sessions: h.stores.sessions,
  });
});
afterEach(() => h.close());

/** An ended watchkeeper session with its log, indexed unless told. */
async function endedSession(indexed = true): Promise<number> {
  const { id, log } = await endedSessionWithLog(h);
  if (indexed) await graph.index(log);
  return id;
}

const idOf = (sql: string) => (h.stores.db.prepare(sql).get() as { id: number }).id;

describe('the Memory graph, page and API alike', () => {
  it('answers with what was indexed, holding the event loop for no statement', async () => {
    await graph.index(MAIN);
    const wk = await endedSession();
    const idea = idOf("SELECT id FROM ideas WHERE content LIKE 'We changed%'");
    const entity = idOf("SELECT id FROM entities WHERE name = 'PostgreSQL'");
    const recall = encodeURIComponent('decisions about the backup window');
    const changed = 'We changed the nightly restic backup from 02:00 to 01:00 instead';
    // Each path, and what its answer must show.
    const pages: [string, string | RegExp][] = [
      ['/graph', /id="graph-chains"[\s\S]*We decided to run the nightly restic backup at 02:00/],
      [`/graph?q=${recall}`, new RegExp(`id="graph-answer"[\\s\\S]*${changed}`)],
      [`/graph/sessions/${SESSION}`, 'We decided to run the nightly restic backup'],
      [`/graph/sessions/${SESSION.slice(0, 8)}?intent=decision`, changed],
      [`/graph/ideas/${idea}`, `superseded by #${idea}`],
      [`/graph/entities/${entity}`, 'Also written: Postgres, PostgreSQL'],
      [`/graph/watchkeeper/${wk}`, 'Takes 60s to start after restart'],
    ];
    const apis: [string, string | RegExp][] = [
      [`/api/v1/graph/remember?q=${recall}`, changed],
      [`/api/v1/graph/remember?q=${recall}&session=${SESSION.slice(0, 8)}`, changed],
      [
        `/api/v1/graph/remember?q=${encodeURIComponent('postgresql dumps')}`,
        'dumped to /srv/immich/pg-dump.sql',
      ],
      ['/api/v1/graph/stats', '"open_questions":1'],
    ];
    const blocked: Record<string, number[]> = {};
    for (const round of [1, 2]) {
      for (const [path, shows] of [...pages, ...apis]) {
        const headers: Record<string, string> = path.startsWith('/api/')
          ? { Authorization: `Bearer ${TOKEN}` }
          : {
              Cookie: auth.cookie,
              ...(path.includes('watchkeeper') ? { 'HX-Request': 'true' } : {}),
            };
        let body = '';
        const n = await blockingDuring(h.stores.db, async () => {
          const res = await h.request(path, { headers });
          expect(res.status, path).toBe(200);
          body = await res.text();
        });
        expect(body, path).toMatch(shows);
        (blocked[path] ??= []).push(n);
      }
      // More is stored: the in-memory indexes and the full-text copy are read again.
      if (round === 1) await graph.index(SUBAGENT);
    }
    expect(blocked).toEqual(Object.fromEntries([...pages, ...apis].map(([p]) => [p, [0, 0]])));
  });
});

describe("a watchkeeper session's topics, its log not read yet", () => {
  it('are read in the request on SQLite, queued for serve on PostgreSQL, blocking neither', async () => {
    // serve's queue, as serve makes it on PostgreSQL: each file indexed by another process.
    const queued: string[] = [];
    indexQueueOf({
      config: loadConfig({ WATCHKEEPER_DATA_DIR: h.dataDir }),
      stores: h.stores,
      knowledge: h.knowledge,
      clock: h.clock,
      log: silentLogger,
      indexFile: (file) => {
        queued.push(file);
        return Promise.resolve({ file, status: 'indexed', lines: 0, ideas: 0 });
      },
    });
    const id = await endedSession(false);
    const part = async () => {
      let body = '';
      const blocked = await blockingDuring(h.stores.db, async () => {
        const res = await h.request(`/graph/watchkeeper/${id}`, {
          headers: { Cookie: auth.cookie, 'HX-Request': 'true' },
        });
        expect(res.status).toBe(200);
        body = await res.text();
      });
      expect(blocked).toBe(0);
      return body;
    };
    const log = join(h.dataDir, 'sessions', `${id}.ndjson`);
    if (h.stores.db.engine === 'postgres') {
      const first = await part();
      expect(first).toContain('Being indexed into the memory graph');
      // The part asks again by itself until the log is read.
      expect(first).toContain(`hx-get="/graph/watchkeeper/${id}" hx-trigger="load delay:3s"`);
      expect(queued).toEqual([log]);
      await graph.index(log);
    }
    const body = await part();
    expect(body).toContain('Takes 60s to start after restart');
    expect(body).not.toContain('hx-trigger');
    expect(queued.length).toBeLessThanOrEqual(1);
  });
});
