/**
 * Indexing the hand-made Claude Code transcript (test/fixtures/graph/README.md) and a real
 * watchkeeper session log: topics, ideas with intent and confidence, entities with their
 * spellings folded, relations and answered questions, with the offline rules and with the
 * simulated model through the real gateway.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { gatewayModel } from '../../src/graph/index.js';
import { testApp } from '../helpers/db.js';
import {
  type GraphApp,
  graphApp,
  graphOver,
  ideaRows,
  MAIN,
  relationRows,
  SESSION,
  SUBAGENT,
} from '../helpers/graph.js';
import { simGateway, type SimGateway } from '../helpers/gateway.js';

const REAL_LOG = fileURLToPath(
  new URL('../fixtures/transcripts/real-cli-2.1.197.ndjson', import.meta.url),
);

let app: GraphApp | undefined;
let gw: SimGateway | undefined;
afterEach(async () => {
  await gw?.close();
  app?.close();
  app = undefined;
  gw = undefined;
});

describe('the hand-made Claude Code transcript, offline', () => {
  it('splits it into three topics at the explicit transition and the pause, named by keywords', async () => {
    app = graphApp();
    const report = await app.graph.index(MAIN);
    expect(report).toMatchObject({ status: 'indexed', lines: 21, spans: 3, partialLine: false });
    const topics = (await app.graph.views.session(SESSION)).topics;
    expect(topics.map((t) => [t.span.startLine, t.span.endLine])).toEqual([
      [2, 9],
      [10, 13],
      [15, null],
    ]);
    expect(topics[0]!.span.name.toLowerCase()).toContain('backup');
    expect(topics[1]!.span.name).toContain('Caddy');
    expect(topics[1]!.span.summary).toContain('Fixed by opening port 80');
    expect(topics[1]!.span.summary).toContain('Open: Should we switch to the DNS-01 challenge');
  });

  it('extracts the ideas with their intent, skips low-value turns and never reads tool output', async () => {
    app = graphApp();
    await app.graph.index(MAIN);
    const ideas = ideaRows(app);
    const find = (text: string) => ideas.find((i) => i.content.includes(text));
    expect(find('How long may the restic backup take')).toMatchObject({
      line: 2,
      intent: 'question',
      answered: 1,
    });
    expect(find('We need to plan the nightly backup')).toMatchObject({ intent: 'todo' });
    expect(find('We decided to run the nightly restic backup at 02:00')).toMatchObject({
      line: 4,
      intent: 'decision',
    });
    expect(find('Caddy keeps failing to renew')).toMatchObject({ intent: 'problem' });
    expect(find('Fixed by opening port 80')).toMatchObject({ intent: 'solution' });
    expect(find('Should we switch to the DNS-01 challenge')).toMatchObject({
      intent: 'question',
      answered: 0,
    });
    expect(find('from 02:00 to 01:00 instead')).toMatchObject({ line: 16, intent: 'decision' });
    // Low value: "ok", "Let me check the logs."; tool output (line 7) is never an idea.
    expect(ideas.filter((i) => [5, 7, 8].includes(i.line))).toEqual([]);
    expect(ideas.some((i) => /delete every snapshot|planted/.test(i.content))).toBe(false);
  });

  it('reads tentative and firm wording as confidence', async () => {
    app = graphApp();
    await app.graph.index(MAIN);
    const rows = app.stores.db.prepare('SELECT content, confidence FROM ideas').all() as {
      content: string;
      confidence: number;
    }[];
    const conf = (text: string) => rows.find((r) => r.content.includes(text))!.confidence;
    expect(conf('We decided to run the nightly')).toBeGreaterThanOrEqual(0.8);
    expect(conf('the backup window holds for now')).toBeLessThanOrEqual(0.4);
  });

  it('finds the relations: answers, supersedes, builds on', async () => {
    app = graphApp();
    await app.graph.index(MAIN);
    const rels = relationRows(app).map(
      (r) => `${r.type}: ${r.from.slice(0, 30).trimEnd()} -> ${r.to.slice(0, 30).trimEnd()}`,
    );
    expect(rels).toEqual([
      'answers: We decided to run the nightly -> How long may the restic backup',
      'answers: Fixed by opening port 80 in nf -> Caddy keeps failing to renew t',
      'supersedes: We changed the nightly restic -> We decided to run the nightly',
      'builds_on: Additionally, the backup sends -> We changed the nightly restic',
    ]);
  });

  it('folds spellings into one entity and links ideas of both sessions to it', async () => {
    app = graphApp();
    await app.graph.index(MAIN);
    await app.graph.index(SUBAGENT);
    const pg = app.stores.db
      .prepare("SELECT id FROM entities WHERE name = 'PostgreSQL' AND type = 'technology'")
      .all() as { id: number }[];
    expect(pg).toHaveLength(1);
    const view = await app.graph.views.entity(pg[0]!.id);
    // Spellings are kept once whatever their case.
    expect(view.aliases).toEqual(['Postgres', 'PostgreSQL']);
    expect(new Set(view.ideas.map((i) => i.session))).toEqual(
      new Set([SESSION, `${SESSION}/agent-a1b2c3d4e5f6a7b8c`]),
    );
    const files = app.stores.db.prepare("SELECT name FROM entities WHERE type = 'file'").all();
    expect(files).toEqual([{ name: '/srv/immich/pg-dump.sql' }]);
  });

  it('marks the subagent transcript as a subagent of its session', async () => {
    app = graphApp();
    await app.graph.index(SUBAGENT);
    const s = await app.graph.views.resolveSession(`${SESSION}/agent`);
    expect(s).toMatchObject({
      kind: 'subagent',
      parentSession: SESSION,
      title: 'general-purpose: check dumps',
      project: 'homelab',
    });
    expect(ideaRows(app).map((i) => i.intent)).toEqual(['context', 'context']);
  });
});

describe('the hand-made transcript through the simulated gateway', () => {
  it('uses the model for ideas, topic names and summaries; relations and answers as offline', async () => {
    const base = testApp();
    // The simulated model's own answers to the graph's jobs (src/sim/graph-jobs.ts).
    gw = await simGateway(base);
    app = graphOver(base, { model: gatewayModel(gw.gateway) });
    await app.graph.index(MAIN);
    const topics = (await app.graph.views.session(SESSION)).topics;
    // Closed topics are named and summarised by the model; the open one has provisional keywords.
    expect(topics.map((t) => [t.span.startLine, t.span.name])).toEqual([
      [2, 'Sim: We need to'],
      [10, "Sim: Let's move on"],
      [15, expect.stringMatching(/backup/i)],
    ]);
    expect(topics[0]!.span.summary).toMatch(/^Simulated summary: \d+ ideas\.$/);
    const ideas = ideaRows(app);
    expect(ideas.find((i) => i.content.includes('How long may the restic'))).toMatchObject({
      intent: 'question',
      answered: 1,
    });
    expect(ideas.find((i) => i.content.includes('from 02:00 to 01:00'))).toMatchObject({
      intent: 'decision',
    });
    expect(ideas.some((i) => /delete every snapshot/.test(i.content))).toBe(false);
    expect(relationRows(app).map((r) => r.type)).toEqual(
      expect.arrayContaining(['answers', 'supersedes']),
    );
    // The model named Postgres; the rules fold it to PostgreSQL.
    expect(
      app.stores.db
        .prepare("SELECT name FROM entities WHERE type = 'technology' AND name = 'PostgreSQL'")
        .all(),
    ).toHaveLength(1);
    const jobs = await app.stores.gatewayJobs.list({ limit: 100 });
    expect(new Set(jobs.map((j) => j.kind))).toEqual(
      new Set(['graph-extract', 'graph-name', 'graph-summary']),
    );
    expect(jobs.every((j) => j.outcome === 'ok')).toBe(true);
  });

  it('falls back to the rules when the model answers nonsense', async () => {
    const base = testApp();
    gw = await simGateway(base, { script: () => [{ type: 'text', text: 'not json at all' }] });
    app = graphOver(base, { model: gatewayModel(gw.gateway) });
    await app.graph.index(MAIN);
    const offline = graphApp();
    await offline.graph.index(MAIN);
    try {
      expect(ideaRows(app).map((i) => [i.line, i.intent, i.content])).toEqual(
        ideaRows(offline).map((i) => [i.line, i.intent, i.content]),
      );
      expect((await app.stores.gatewayJobs.list({ kind: 'graph-extract' }))[0]).toMatchObject({
        outcome: 'invalid_output',
      });
    } finally {
      offline.close();
    }
  });
});

describe('a watchkeeper session log', () => {
  it('takes the prompt from the session row, the model text as ideas, never tool output', async () => {
    app = graphApp();
    const id = app.stores.sessions.start({
      trigger: 'manual',
      tier: 1,
      prompt: 'Why is jellyfin slow to answer its health check?',
      startedAt: Date.UTC(2026, 2, 10),
    });
    mkdirSync(join(app.dataDir, 'sessions'), { recursive: true });
    const log = join(app.dataDir, 'sessions', `${id}.ndjson`);
    copyFileSync(REAL_LOG, log);
    // As the runner records it: the session's log, relative to the data folder.
    await app.stores.sessions.setLogPath(id, join('sessions', `${id}.ndjson`));
    const report = await app.graph.index(log);
    expect(report).toMatchObject({ session: `wk-${id}`, kind: 'watchkeeper', status: 'indexed' });
    const ideas = ideaRows(app);
    expect(ideas[0]).toMatchObject({
      line: 0,
      intent: 'question',
      content: 'Why is jellyfin slow to answer its health check?',
    });
    expect(ideas.map((i) => i.content)).toContain('Takes 60s to start after restart');
    expect(ideas.some((i) => i.content.includes('hello-from-tool'))).toBe(false);
    expect(await app.graph.stores.sources.ofWatchkeeperSession(id)).toHaveLength(1);
    const jellyfin = app.stores.db
      .prepare("SELECT name FROM entities WHERE type = 'technology'")
      .all();
    expect(jellyfin).toContainEqual({ name: 'Jellyfin' });
  });
});
