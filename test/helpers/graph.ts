import { copyFileSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Embedder } from '../../src/embed/index.js';
import { createGraph, type Graph, type GraphModel } from '../../src/graph/index.js';
import { createEmbedding } from '../../src/knowledge/embedding.js';
import { type TestApp, testApp } from './db.js';

/** A real Claude CLI session's stream-json log (see test/fixtures/transcripts). */
const REAL_LOG = fileURLToPath(
  new URL('../fixtures/transcripts/real-cli-2.1.197.ndjson', import.meta.url),
);

/**
 * A watchkeeper session that ended, its log (a real CLI's) in the data folder's sessions/ and
 * recorded as the runner records it: relative to the data folder. Its id and the log's path.
 */
export async function endedSessionWithLog(
  app: Pick<TestApp, 'stores' | 'dataDir'>,
): Promise<{ id: number; log: string }> {
  const id = app.stores.sessions.start({
    trigger: 'manual',
    tier: 1,
    prompt: 'Why is jellyfin slow?',
    startedAt: Date.UTC(2026, 2, 10),
  });
  mkdirSync(join(app.dataDir, 'sessions'), { recursive: true });
  const log = join(app.dataDir, 'sessions', `${id}.ndjson`);
  copyFileSync(REAL_LOG, log);
  await app.stores.sessions.setLogPath(id, join('sessions', `${id}.ndjson`));
  app.stores.sessions.finish(id, { status: 'completed', endedAt: Date.UTC(2026, 2, 10, 0, 5) });
  return { id, log };
}

/** The hand-made Claude Code projects folder (see test/fixtures/graph/README.md). */
export const PROJECTS = fileURLToPath(new URL('../fixtures/graph/projects/', import.meta.url));
export const SESSION = '5f0c1d2e-7a8b-4c9d-8e1f-0a1b2c3d4e5f';
export const AGENT = 'a1b2c3d4e5f6a7b8c';
export const MAIN = join(PROJECTS, '-home-ops-homelab', `${SESSION}.jsonl`);
export const SUBAGENT = join(
  PROJECTS,
  '-home-ops-homelab',
  SESSION,
  'subagents',
  `agent-${AGENT}.jsonl`,
);

export interface GraphApp extends TestApp {
  graph: Graph;
}

/** A fresh store with the graph over it: offline rules unless a model is given. */
export function graphApp(o: { embedder?: Embedder | null; model?: GraphModel } = {}): GraphApp {
  return graphOver(testApp(), o);
}

/** The graph over an existing test app (one whose gateway records jobs in the same store). */
export function graphOver(
  app: TestApp,
  o: { embedder?: Embedder | null; model?: GraphModel } = {},
): GraphApp {
  const embedding = createEmbedding({
    embedder: o.embedder ?? null,
    events: app.stores.events,
    clock: app.clock,
  });
  const graph = createGraph({
    db: app.stores.db,
    embedding,
    clock: app.clock,
    dataDir: app.dataDir,
    sessions: app.stores.sessions,
    ...(o.model ? { model: o.model } : {}),
  });
  return { ...app, graph };
}

/** A copy of the fixture projects folder that a test may change. */
export function fixtureCopy(): { dir: string; main: string; subagent: string } {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-graph-'));
  cpSync(PROJECTS, dir, { recursive: true });
  return {
    dir,
    main: join(dir, '-home-ops-homelab', `${SESSION}.jsonl`),
    subagent: join(dir, '-home-ops-homelab', SESSION, 'subagents', `agent-${AGENT}.jsonl`),
  };
}

/** Ideas as `line intent: content` rows, in order (what a failing assertion shows well). */
export function ideaRows(app: TestApp): {
  id: number;
  line: number;
  intent: string;
  content: string;
  answered: number | null;
  session: string;
}[] {
  return app.stores.db
    .prepare(
      'SELECT id, source_line AS line, intent, content, answered, session FROM ideas ORDER BY session, source_line, id',
    )
    .all() as {
    id: number;
    line: number;
    intent: string;
    content: string;
    answered: number | null;
    session: string;
  }[];
}

export function relationRows(app: TestApp): { type: string; from: string; to: string }[] {
  return app.stores.db
    .prepare(
      `SELECT r.relation_type AS type, f.content AS "from", t.content AS "to" FROM relations r
         JOIN ideas f ON f.id = r.from_id JOIN ideas t ON t.id = r.to_id ORDER BY r.id`,
    )
    .all() as { type: string; from: string; to: string }[];
}

/** What every run of the jellyfin check reports, as a Claude Code transcript of one run. */
export const RUN_REPORT = [
  'Why is jellyfin slow again?',
  'The transcode queue is stuck behind a worker that stopped reporting progress. ' +
    'Cause: wedged transcode worker. Degraded: jellyfin (slow health checks). ' +
    'Jellyfin takes about a minute after a restart Takes 60s to become healthy.',
];

/** Writes `runs` transcripts, one a day from 2026-03-01, each saying `messages`. */
export function writeRuns(folder: string, runs: number, messages = RUN_REPORT): string[] {
  return Array.from({ length: runs }, (_, k) => {
    const session = `run-${k + 1}`;
    const file = join(folder, `${session}.jsonl`);
    const lines = messages.map((content, n) => {
      const role = n % 2 ? 'assistant' : 'user';
      return JSON.stringify({
        type: role,
        sessionId: session,
        timestamp: new Date(Date.UTC(2026, 2, 1 + k, 9, n)).toISOString(),
        message: { role, content },
      });
    });
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  });
}
