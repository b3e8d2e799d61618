/**
 * A session running on the fleet's PostgreSQL while the server goes away: its markers are held
 * and written, in order, once it is back; a queue that overflows, or a session that ends while
 * the server is still down, is recorded as failed with what was kept once the server returns.
 * Each test has a cluster of its own, stopped and started at will.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { openStores, type Stores } from '../../src/db/index.js';
import { createKnowledge } from '../../src/knowledge/index.js';
import type { Logger } from '../../src/log.js';
import { SessionFeed } from '../../src/runner/live-feed.js';
import { MAX_HELD_WRITES } from '../../src/runner/marker-outbox.js';
import { createSessionRunner, type RunSession } from '../../src/runner/session-runner.js';
import { CLUSTER_PASSWORD, type PgCluster, startPgCluster } from '../helpers/pg-cluster.js';
import { skipWithoutPostgres } from '../helpers/postgres.js';

const OUTAGE_CLAUDE = fileURLToPath(new URL('../fixtures/bin/outage-claude.mjs', import.meta.url));

skipWithoutPostgres();

interface LogEntry {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

let cluster: PgCluster | null = null;
let stores: Stores | null = null;
let dataDir = '';
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-outage-'));
});
afterEach(async () => {
  await cluster?.start().catch(() => undefined);
  stores?.close();
  stores = null;
  await cluster?.destroy();
  cluster = null;
  rmSync(dataDir, { recursive: true, force: true });
});

function recordingLogger(entries: LogEntry[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      entries.push({ level, msg, fields });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

async function setUp(entries: LogEntry[]): Promise<{ runSession: RunSession; url: string }> {
  cluster = await startPgCluster();
  await cluster.createDatabase('wk');
  const url = cluster.url('wk');
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_CLAUDE_BIN: OUTAGE_CLAUDE,
    WATCHKEEPER_DATABASE_URL: url,
    WATCHKEEPER_SESSION_TIMEOUT: '60s',
    WATCHKEEPER_KILL_GRACE: '1s',
    WATCHKEEPER_STDOUT_GRACE: '1s',
  });
  stores = openStores(url, { instance: 'local' });
  const knowledge = createKnowledge({ stores, embedder: null, clock: systemClock });
  const runSession = createSessionRunner({
    config,
    stores,
    knowledge,
    clock: systemClock,
    feed: new SessionFeed(),
    log: recordingLogger(entries),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir },
  });
  return { runSession, url };
}

const script = (phases: string[], result = 'done') =>
  JSON.stringify({ phases: phases.map((say) => ({ say })), result });

const request = (prompt: string) => ({
  trigger: 'scheduled' as const,
  tier: 1 as const,
  prompt,
  parentSessionId: null,
  handoff: null,
  alert: null,
});

const gate = (name: string) => join(dataDir, 'outage', name);

async function until<T>(what: string, check: () => Promise<T | null> | T | null, ms = 90_000) {
  const end = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got !== null && got !== false) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A query on a connection of its own (never the stores'), or null while the server is down. */
async function query<R extends pg.QueryResultRow>(url: string, sql: string): Promise<R[] | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query<R>(sql)).rows;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const agentEvents = async (url: string) =>
  (
    await query<{ message: string }>(
      url,
      "SELECT message FROM events WHERE source = 'agent' ORDER BY id",
    )
  )?.map((r) => r.message) ?? null;

describe('a session while PostgreSQL goes away', () => {
  it('holds the markers while the server is down and writes them, in order, when it is back', async () => {
    const log: LogEntry[] = [];
    const { runSession, url } = await setUp(log);
    const during = [1, 2, 3, 4, 5].map((i) => `[EVENT:warning:db] held ${i}`);
    const running = runSession(
      request(
        script(
          [
            '[EVENT:info:web] before the outage\n[MEMORY:timing:web] Warms its cache for 20s',
            [
              ...during,
              '[MEMORY:behavior:db] Replica lag alarms at 30s',
              '[COOLDOWN:restart:db] success - restarted',
            ].join('\n'),
            '[EVENT:info:web] after the outage',
          ],
          'all stored',
        ),
      ),
    );
    await until('the first marker stored', async () =>
      (await agentEvents(url))?.includes('before the outage') ? true : null,
    );
    await cluster!.stop();
    writeFileSync(gate('go-1'), '');
    await until('phase 2 printed', () => existsSync(gate('printed-2')) || null);
    // The stream is read on: the warning comes once the runner has met the outage.
    await until(
      'the outage warning',
      () => log.some((l) => l.msg.startsWith('the database is unreachable')) || null,
    );
    await cluster!.start();
    // Written by the retry timer, before any further marker arrives.
    await until('the held markers written', async () => {
      const events = await agentEvents(url);
      return events && events.length === 6 ? events : null;
    });
    writeFileSync(gate('go-2'), '');
    const out = await running;

    expect(out.status).toBe('completed');
    expect(out.error).toBeNull();
    expect(await agentEvents(url)).toEqual([
      'before the outage',
      'held 1',
      'held 2',
      'held 3',
      'held 4',
      'held 5',
      'after the outage',
    ]);
    const memories = await query<{ observation: string }>(
      url,
      'SELECT observation FROM memories ORDER BY id',
    );
    expect(memories!.map((m) => m.observation)).toEqual([
      'Warms its cache for 20s',
      'Replica lag alarms at 30s',
    ]);
    const cooldowns = await query<{ service: string }>(url, 'SELECT service FROM cooldown_actions');
    expect(cooldowns).toEqual([{ service: 'db' }]);
    const row = await query<{ status: string; cli_session_id: string }>(
      url,
      `SELECT status, cli_session_id FROM sessions WHERE id = ${out.sessionId}`,
    );
    expect(row).toEqual([
      { status: 'completed', cli_session_id: '99999999-2222-4333-8444-555555555555' },
    ]);
    // One warning for the outage, not one per marker; the password is never logged.
    expect(log.filter((l) => l.msg.startsWith('the database is unreachable'))).toHaveLength(1);
    expect(JSON.stringify(log)).not.toContain(CLUSTER_PASSWORD);
  });

  it('records a session that overflowed and ended while the server was down as failed, with what it kept, once it returns', async () => {
    const log: LogEntry[] = [];
    const { runSession, url } = await setUp(log);
    const many = Array.from(
      { length: MAX_HELD_WRITES + 10 },
      (_, i) => `[EVENT:info:svc] line ${i + 1}`,
    );
    const running = runSession(
      request(script(['[EVENT:info:web] before the outage', many.join('\n')], 'finished')),
    );
    await until('the first marker stored', async () =>
      (await agentEvents(url))?.includes('before the outage') ? true : null,
    );
    await cluster!.stop();
    writeFileSync(gate('go-1'), '');
    // The session ends while the server is still down: the runner does not wait for it.
    const out = await running;
    expect(out.status).toBe('failed');
    expect(out.error).toContain('the database was unreachable when the session ended');
    expect(out.error).toContain(
      `10 markers after the first ${MAX_HELD_WRITES} held were not stored`,
    );

    // Until the server returns, a note beside the session log says what is not stored yet.
    const notePath = join(dataDir, 'sessions', `${out.sessionId}.unstored.ndjson`);
    const note = readFileSync(notePath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(note[0]).toMatchObject({
      session: out.sessionId,
      status: 'failed',
      held: MAX_HELD_WRITES,
      dropped: 10,
    });
    expect(note).toHaveLength(MAX_HELD_WRITES + 1);
    expect(note[1]).toMatchObject({ held: { kind: 'event', message: 'line 1' } });

    await cluster!.start();
    const row = await until('the session recorded', async () => {
      const rows = await query<{ status: string; error: string }>(
        url,
        `SELECT status, error FROM sessions WHERE id = ${out.sessionId}`,
      );
      return rows?.[0]?.status === 'failed' ? rows[0] : null;
    });
    expect(row.error).toBe(out.error);
    const events = (await agentEvents(url))!;
    expect(events).toHaveLength(1 + MAX_HELD_WRITES);
    expect(events.slice(0, 3)).toEqual(['before the outage', 'line 1', 'line 2']);
    expect(events.at(-1)).toBe(`line ${MAX_HELD_WRITES}`);
    expect(existsSync(notePath)).toBe(false);
  });
});
