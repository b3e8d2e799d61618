/**
 * Conversation memory: 1,000 conversations of 100 messages in a temp SQLite file, each with a
 * completed sliding-window summary and two extracted memories in its scope (plus 2,000 ops
 * memories). Reports:
 * - messages ingested per second through the conversation service (store, seq, triggers), and
 *   through the HTTP API (`POST /api/v1/conversations/{id}/messages`, in-process, bearer token);
 * - the context answer's latency (summary, gap messages and the memories of the scope, searched
 *   by the newest user message; lexical search, embeddings off), median and p95, through the
 *   service and through `GET /api/v1/conversations/{id}/context`.
 * The gateway is off, so no background job runs during the measurements.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { loadConfig } from '../dist/config/index.js';
import { createConversations } from '../dist/conversations/index.js';
import { openStores } from '../dist/db/index.js';
import { createGateway } from '../dist/gateway/index.js';
import { createKnowledge } from '../dist/knowledge/index.js';
import { silentLogger } from '../dist/log.js';
import { SessionFeed } from '../dist/runner/live-feed.js';
import { createApp } from '../dist/web/app.js';
import { createRng } from './prng.js';
import { round } from './stats.js';
import { collectGarbage } from './timing.js';

const CONVERSATIONS = 1000;
const MESSAGES = 100;
const HTTP_MESSAGES = 10_000;
const CONTEXT_READS = 2000;
const HTTP_CONTEXT_READS = 1000;
const TOKEN = 'bench-token-0123456789abcdef';
const SEED = 9_001;

const TOPICS = ['postgres', 'jellyfin', 'caddy', 'backup', 'dns', 'certificates', 'nas', 'vpn'];

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function fakeRunner() {
  return {
    trigger: () => {
      throw new Error('no runs in this benchmark');
    },
    ticket: () => null,
    stopCurrent: () => false,
    status: () => ({ running: null, queued: [], nextRunAt: null, schedule: null }),
    cooldownState: () => [],
    cooldownHorizon: (now) => now,
  };
}

export async function runConversationsBench(ctx) {
  const dir = mkdtempSync(join(tmpdir(), 'wk-bench-conv-'));
  const rng = createRng(SEED);
  const clock = { now: () => Date.now() };
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dir,
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    WATCHKEEPER_GATEWAY: 'off',
  });
  const stores = openStores(config.dbPath);
  try {
    const knowledge = createKnowledge({ stores, embedder: null, clock });
    const gateway = createGateway({
      config: config.gateway,
      backend: null,
      jobs: stores.gatewayJobs,
      events: stores.events,
      clock,
    });
    const conversations = createConversations({ stores, knowledge, gateway, clock });
    const text = (seq, c) =>
      seq % 2 === 0
        ? `Question ${seq}: what about the ${rng.pick(TOPICS)} setup of conversation ${c}?`
        : `Answer ${seq}: the ${rng.pick(TOPICS)} setup is fine, keep the ${rng.pick(TOPICS)} defaults and check again next week.`;

    // Ingest through the service: every message of every conversation, round by round.
    collectGarbage();
    let t0 = performance.now();
    for (let seq = 0; seq < MESSAGES; seq += 1) {
      for (let c = 0; c < CONVERSATIONS; c += 1) {
        conversations.post(`c${c}`, {
          role: seq % 2 === 0 ? 'user' : 'assistant',
          content: text(seq, c),
        });
      }
    }
    const serviceMs = performance.now() - t0;
    const total = CONVERSATIONS * MESSAGES;
    ctx.add({
      name: 'conversations.ingest',
      value: Math.round(total / (serviceMs / 1000)),
      unit: 'msg/s',
      notes: `${total.toLocaleString('en-US')} messages into ${CONVERSATIONS} conversations through the service (gateway off)`,
    });

    // Each conversation: a completed summary of its window and two extracted memories.
    const at = Date.now();
    stores.db.transaction(() => {
      for (let c = 0; c < CONVERSATIONS; c += 1) {
        const row = stores.summaries.claim(`c${c}`, 84, 97, at);
        stores.summaries.complete(
          row.id,
          `Summary of messages 84-97 of c${c}: ${TOPICS.join(', ')} discussed.`,
          900,
          null,
          at,
        );
        for (let k = 0; k < 2; k += 1) {
          stores.memories.create({
            service: null,
            category: 'behavior',
            observation: `In conversation ${c} the user decided the ${rng.pick(TOPICS)} setup stays on ${rng.pick(TOPICS)} (${k})`,
            confidence: 0.7,
            sessionId: null,
            tier: 1,
            at,
            nextDecayAt: at + 1e12,
            source: 'conversation',
            sourceRef: `conversation c${c} #0-9`,
            scope: `conversation:c${c}`,
          });
        }
        stores.memories.create({
          service: rng.pick(TOPICS),
          category: 'timing',
          observation: `${rng.pick(TOPICS)} takes ${rng.int(5, 120)}s to restart (${c})`,
          confidence: 0.7,
          sessionId: null,
          tier: 1,
          at,
          nextDecayAt: at + 1e12,
        });
        stores.memories.create({
          service: rng.pick(TOPICS),
          category: 'dependency',
          observation: `${rng.pick(TOPICS)} needs ${rng.pick(TOPICS)} up first (${c})`,
          confidence: 0.7,
          sessionId: null,
          tier: 1,
          at,
          nextDecayAt: at + 1e12,
        });
      }
    })();

    // The context answer through the service.
    for (let i = 0; i < 50; i += 1)
      await conversations.context(`c${rng.int(0, CONVERSATIONS - 1)}`);
    collectGarbage();
    const latencies = [];
    let memoriesFound = 0;
    let gap = 0;
    for (let i = 0; i < CONTEXT_READS; i += 1) {
      const id = `c${rng.int(0, CONVERSATIONS - 1)}`;
      t0 = performance.now();
      const answer = await conversations.context(id);
      latencies.push(performance.now() - t0);
      memoriesFound += answer.memories.length;
      gap += answer.gapMessages.length;
    }
    if (gap !== CONTEXT_READS * 2)
      ctx.fail(`expected 2 gap messages per answer, got ${gap / CONTEXT_READS}`);
    ctx.add({
      name: 'conversations.context',
      value: round(percentile(latencies, 50), 2),
      unit: 'ms',
      notes: `median of ${CONTEXT_READS} context answers (summary, 2 gap messages, memory search), p95 ${round(percentile(latencies, 95), 2)} ms; ${round(memoriesFound / CONTEXT_READS, 1)} memories per answer; ${CONVERSATIONS} conversations, ${stores.search.countMemories().toLocaleString('en-US')} memories`,
    });

    // The same over HTTP (the Hono app in-process: routing, auth, JSON).
    const app = createApp({
      config,
      stores,
      knowledge,
      conversations,
      gateway,
      feed: new SessionFeed(),
      runner: fakeRunner(),
      clock,
      log: silentLogger,
      demo: false,
      secret: randomBytes(32),
    });
    const headers = { Host: 'localhost', Authorization: `Bearer ${TOKEN}` };
    const httpLatencies = [];
    collectGarbage();
    for (let i = 0; i < HTTP_CONTEXT_READS; i += 1) {
      const id = `c${rng.int(0, CONVERSATIONS - 1)}`;
      t0 = performance.now();
      const res = await app.request(`http://localhost/api/v1/conversations/${id}/context`, {
        headers,
      });
      await res.json();
      httpLatencies.push(performance.now() - t0);
      if (res.status !== 200) {
        ctx.fail(`GET context answered ${res.status}`);
        break;
      }
    }
    ctx.add({
      name: 'conversations.context-http',
      value: round(percentile(httpLatencies, 50), 2),
      unit: 'ms',
      notes: `median of ${HTTP_CONTEXT_READS} GET /api/v1/conversations/{id}/context, p95 ${round(percentile(httpLatencies, 95), 2)} ms`,
    });

    collectGarbage();
    t0 = performance.now();
    for (let i = 0; i < HTTP_MESSAGES; i += 1) {
      const res = await app.request(`http://localhost/api/v1/conversations/h${i % 100}/messages`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          role: i % 2 === 0 ? 'user' : 'assistant',
          content: text(i, i % 100),
        }),
      });
      if (res.status !== 201) {
        ctx.fail(`POST message answered ${res.status}`);
        break;
      }
    }
    const httpMs = performance.now() - t0;
    ctx.add({
      name: 'conversations.ingest-http',
      value: Math.round(HTTP_MESSAGES / (httpMs / 1000)),
      unit: 'msg/s',
      notes: `${HTTP_MESSAGES.toLocaleString('en-US')} POST /api/v1/conversations/{id}/messages, one at a time, in-process`,
    });
    await conversations.close();
  } finally {
    stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
