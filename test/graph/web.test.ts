/**
 * The Memory graph pages and API, in-process over a real store indexed from the hand-made
 * transcript: the conversations, the latest ideas by intent, the evolution chains, entity and
 * idea pages, a watchkeeper session's topics on its page, and /api/v1/graph.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createGraph } from '../../src/graph/index.js';
import { endedSessionWithLog, MAIN, SESSION, SUBAGENT, writeRuns } from '../helpers/graph.js';
import { type SignedIn, TOKEN, webHarness, type WebHarness } from '../helpers/web.js';
import { unsafeMarkup, XSS_CORPUS } from '../helpers/xss.js';

let h: WebHarness;
let auth: SignedIn;
beforeEach(async () => {
  h = webHarness();
  const graph = createGraph({
    db: h.stores.db,
    embedding: h.knowledge.embedding,
    clock: h.clock,
    dataDir: h.dataDir,
  });
  await graph.index(MAIN);
  await graph.index(SUBAGENT);
  auth = await h.login();
});
afterEach(() => h.close());

const get = async (path: string) => {
  const res = await h.request(path, { headers: { Cookie: auth.cookie } });
  return { status: res.status, body: await res.text() };
};
const api = async (path: string) => {
  const res = await h.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

describe('the Memory graph page', () => {
  it('lists the conversations, latest ideas, the evolution chain and the entities', async () => {
    const { status, body } = await get('/graph');
    expect(status).toBe(200);
    expect(body).toContain(`href="/graph/sessions/${SESSION}"`);
    expect(body).toContain('Backups and the reverse proxy');
    expect(body).toMatch(
      /id="graph-chains"[\s\S]*We decided to run the nightly restic backup at 02:00[\s\S]*superseded[\s\S]*We changed the nightly restic backup from 02:00 to 01:00/,
    );
    expect(body).toMatch(/id="graph-entities"[\s\S]*PostgreSQL/);
  });

  it('filters the latest ideas by intent, and refuses an intent it does not know', async () => {
    const { body } = await get('/graph?intent=question');
    const latest = body.slice(body.indexOf('id="graph-latest"'), body.indexOf('<h2>Evolution'));
    expect(latest).toContain('Should we switch to the DNS-01 challenge later');
    expect(latest).not.toContain('We decided to run');
    const bad = await get('/graph?intent=rumour');
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('intent must be one of decision, conclusion, question');
  });

  it('recalls from the box, escaping what the transcript said', async () => {
    const { body } = await get(
      `/graph?q=${encodeURIComponent('decisions about the backup window')}`,
    );
    expect(body).toMatch(/id="graph-answer"[\s\S]*evolution:/);
    expect(body).toContain('We changed the nightly restic backup from 02:00 to 01:00 instead');
  });
});

describe('conversation, idea and entity pages', () => {
  it('shows a conversation as a topic tree with its ideas, filtered by intent', async () => {
    const all = await get(`/graph/sessions/${SESSION.slice(0, 8)}`);
    expect(all.status).toBe(200);
    expect(all.body.match(/class="graph-topic depth-0"/g)).toHaveLength(3);
    const decisions = await get(`/graph/sessions/${SESSION}?intent=decision`);
    const intents = [
      ...decisions.body.matchAll(
        /<li class="graph-idea"[^>]*>\s*<span class="badge intent-(\w+)"/g,
      ),
    ].map((m) => m[1]);
    expect(intents).toEqual(['decision', 'decision']);
    expect(decisions.body).toContain('We decided to run the nightly restic backup');
    const sub = await get(
      `/graph/sessions/${encodeURIComponent(`${SESSION}/agent-a1b2c3d4e5f6a7b8c`)}`,
    );
    expect(sub.body).toContain('subagent');
    expect((await get('/graph/sessions/nothing-like-it')).status).toBe(404);
  });

  it('shows an idea with how the others relate to it', async () => {
    const id = (
      h.stores.db.prepare("SELECT id FROM ideas WHERE content LIKE 'We changed%'").get() as {
        id: number;
      }
    ).id;
    const { body } = await get(`/graph/ideas/${id}`);
    // Each related idea says how it stands to this one.
    expect(body).toMatch(
      new RegExp(
        `We decided to run the nightly restic backup at 02:00[^<]*</a>[\\s\\S]*?superseded by #${id}`,
      ),
    );
    expect(body).toMatch(
      new RegExp(`Additionally, the backup sends[^<]*</a>[\\s\\S]*?builds on #${id}`),
    );
    expect((await get('/graph/ideas/999999')).status).toBe(404);
  });

  it('shows an entity with every idea that names it and the spellings seen', async () => {
    const id = (
      h.stores.db.prepare("SELECT id FROM entities WHERE name = 'PostgreSQL'").get() as {
        id: number;
      }
    ).id;
    const { body } = await get(`/graph/entities/${id}`);
    expect(body).toContain('Also written: Postgres, PostgreSQL');
    expect(body).toContain('Immich keeps its photo library metadata in Postgres');
    expect(body).toContain(
      'Check whether the nightly backup includes the PostgreSQL dumps of Immich.',
    );
  });
});

describe('an idea every run repeats, and words that are no names', () => {
  it('shows the idea once with its count, and no status word among the entities', async () => {
    const graph = createGraph({
      db: h.stores.db,
      embedding: h.knowledge.embedding,
      clock: h.clock,
      dataDir: h.dataDir,
    });
    for (const file of writeRuns(mkdtempSync(join(h.dataDir, 'runs-')), 3)) {
      await graph.index(file);
    }
    // As a graph indexed before the stop list holds them: shown nowhere.
    const { rows } = graph.stores;
    const said = h.stores.db
      .prepare("SELECT id FROM ideas WHERE content LIKE 'The transcode queue%' ORDER BY id")
      .all() as { id: number }[];
    for (const { id } of said) rows.linkEntities(id, [rows.entityId('Degraded', 'person', 'x')]);

    const { body } = await get('/graph');
    const latest = body.slice(body.indexOf('id="graph-latest"'), body.indexOf('<h2>Evolution'));
    expect(latest.match(/The transcode queue is stuck/g)).toHaveLength(1);
    expect(latest).toMatch(/The transcode queue is stuck[\s\S]*?×3,[\s\S]*?in 3 conversations/);
    const entities = body.slice(body.indexOf('id="graph-entities"'));
    expect(entities).toContain('Jellyfin');
    expect(entities).not.toMatch(/>(Degraded|Cause|Takes|Changed) </);

    const recall = await get(`/graph?q=${encodeURIComponent('transcode queue stuck')}`);
    const answer = recall.body.slice(
      recall.body.indexOf('id="graph-answer"'),
      recall.body.indexOf('<h2>Conversations'),
    );
    expect(answer.match(/>The transcode queue is stuck/g)).toHaveLength(1);

    const idea = await get(`/graph/ideas/${said[0]!.id}`);
    expect(idea.body).toMatch(/id="idea-seen">3 times in 3 conversations/);
    expect(idea.body).not.toContain('>Degraded</a>');
  });
});

describe("a watchkeeper session's topics and ideas", () => {
  it('indexes the ended session log on the first view and shows its topic tree', async () => {
    const { id } = await endedSessionWithLog(h);
    const page = await get(`/sessions/${id}`);
    expect(page.body).toContain(`hx-get="/graph/watchkeeper/${id}"`);
    const part = await h.request(`/graph/watchkeeper/${id}`, {
      headers: { Cookie: auth.cookie, 'HX-Request': 'true' },
    });
    const body = await part.text();
    expect(body).toContain(`href="/graph/sessions/wk-${id}"`);
    expect(body).toContain('Takes 60s to start after restart');
    expect(body).not.toContain('hello-from-tool');
  });
});

describe('/api/v1/graph', () => {
  it('recalls within the budget and counts', async () => {
    const r = await api(
      `/api/v1/graph/remember?q=${encodeURIComponent('open questions')}&budget=300`,
    );
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      query: 'open questions',
      budget: 300,
      analysis: { intents: ['question'], open_only: true },
    });
    const groups = r.json.groups as { ideas: { content: string; answered: boolean }[] }[];
    expect(groups.flatMap((g) => g.ideas)).toEqual([
      expect.objectContaining({
        content: 'Should we switch to the DNS-01 challenge later, so that port 80 can stay closed?',
        answered: false,
      }),
    ]);
    expect((r.json.tokens as number) <= 300).toBe(true);
    const stats = await api('/api/v1/graph/stats');
    expect(stats.json).toMatchObject({
      sessions: 2,
      topics: 4,
      open_questions: 1,
      relations_by_type: { supersedes: 1 },
    });
  });

  it('names the field of a bad request', async () => {
    expect(await api('/api/v1/graph/remember?q=')).toMatchObject({
      status: 400,
      json: { error: { field: 'q' } },
    });
    expect(await api('/api/v1/graph/remember?q=x&budget=5')).toMatchObject({
      status: 400,
      json: { error: { field: 'budget' } },
    });
  });
});

describe('what a transcript says is shown, never run', () => {
  it('escapes ideas, topic names, summaries and entities on every graph page', async () => {
    const file = join(h.dataDir, 'xss.jsonl');
    const lines = XSS_CORPUS.map((payload, k) =>
      JSON.stringify({
        type: k % 2 ? 'assistant' : 'user',
        sessionId: 'xss',
        timestamp: new Date(Date.UTC(2026, 2, 1, 10, k)).toISOString(),
        message: {
          role: k % 2 ? 'assistant' : 'user',
          content: `We decided to use \`${payload}\` for the ${payload} service, see ${payload}.`,
        },
      }),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const graph = createGraph({
      db: h.stores.db,
      embedding: h.knowledge.embedding,
      clock: h.clock,
      dataDir: h.dataDir,
    });
    await graph.index(file);
    const ideas = h.stores.db.prepare("SELECT id FROM ideas WHERE session = 'xss'").all() as {
      id: number;
    }[];
    const entities = h.stores.db.prepare('SELECT id FROM entities').all() as { id: number }[];
    expect(ideas.length).toBeGreaterThan(5);
    const pages = [
      '/graph',
      `/graph?q=${encodeURIComponent('decided service')}`,
      '/graph/sessions/xss',
      ...ideas.map((i) => `/graph/ideas/${i.id}`),
      ...entities.map((e) => `/graph/entities/${e.id}`),
    ];
    for (const path of pages) {
      const { status, body } = await get(path);
      expect(status, path).toBe(200);
      expect(unsafeMarkup(body), path).toEqual([]);
    }
  });
});
