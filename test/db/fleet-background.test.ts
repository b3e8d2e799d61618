/**
 * The background work of instances sharing one database: retention prunes an instance's own
 * sessions, events and raw logs (another instance's logs are on another disk) and the shared rows
 * whoever runs it; an instance starting up gives up only its own leftover gateway jobs, conversation
 * summaries and chain summaries; a conversation summary and a conversation's extraction are
 * claimed by one instance at a time.
 */
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { pruneData } from '../../src/cli/commands/prune.js';
import { DAY_MS } from '../../src/clock.js';
import type { Stores } from '../../src/db/index.js';
import { sharedStores, type SharedStores } from '../helpers/shared-stores.js';
import { blockingDuring } from '../helpers/postgres.js';

const NOW = Date.UTC(2026, 5, 1);

let fleet: SharedStores;
let a: Stores;
let b: Stores;
beforeEach(() => {
  fleet = sharedStores(['a', 'b']);
  a = fleet.of.a!;
  b = fleet.of.b!;
});
afterEach(() => fleet.close());

function logFile(instance: string, name: string, daysAgo: number): string {
  const dir = join(fleet.dataDir[instance]!, 'sessions');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, 'x'.repeat(100));
  const at = new Date(NOW - daysAgo * DAY_MS);
  utimesSync(path, at, at);
  return path;
}

/** A finished session of `instance` that ended `daysAgo` days before NOW, with its raw logs. */
async function session(instance: string, daysAgo: number): Promise<{ id: number; log: string }> {
  const stores = fleet.of[instance]!;
  const at = NOW - daysAgo * DAY_MS;
  const id = stores.sessions.start({ trigger: 'scheduled', tier: 1, startedAt: at });
  await stores.sessions.setLogPath(id, `sessions/${id}.ndjson`);
  stores.sessions.finish(id, { status: 'completed', endedAt: at + 60_000 });
  logFile(instance, `${id}.stderr.log`, daysAgo);
  return { id, log: logFile(instance, `${id}.ndjson`, daysAgo) };
}

function event(stores: Stores, daysAgo: number, message: string): number {
  return stores.events.insert({
    sessionId: null,
    source: 'agent',
    level: 'info',
    service: 'jellyfin',
    message,
    createdAt: NOW - daysAgo * DAY_MS,
  });
}

/** A notification delivered long ago (shared: pruned by whichever instance runs). */
async function deliveredNotification(stores: Stores, daysAgo: number): Promise<number> {
  const at = NOW - daysAgo * DAY_MS;
  const { id } = stores.notifications.record(
    {
      kind: 'critical_event',
      level: 'failure',
      service: 'nas',
      title: 'RAID degraded',
      body: 'RAID degraded',
      dedupKey: `critical_event|nas|${stores.instance}`,
      sessionId: null,
      at,
    },
    null,
  );
  stores.notifications.fanOut(
    id,
    [{ targetKey: 'ntfy://t', status: 'pending', lastError: null }],
    at,
  );
  const [d] = (await stores.notifications.list(10)).find(
    (n) => n.notification.id === id,
  )!.deliveries;
  stores.notifications.recordAttempt(d!.id, {
    status: 'sent',
    lastError: null,
    nextAttemptAt: null,
    at,
  });
  return id;
}

function prune(instance: string) {
  const dataDir = fleet.dataDir[instance]!;
  return pruneData(
    { stores: fleet.of[instance]!, dataDir, sessionsDir: join(dataDir, 'sessions'), now: NOW },
    90 * DAY_MS,
    false,
  );
}

describe('retention in a fleet', () => {
  it('prunes only its own sessions, events and logs; the shared rows once, by whoever runs', async () => {
    const oldA = await session('a', 200);
    const oldB = await session('b', 200);
    const recentA = await session('a', 10);
    event(a, 200, 'old event on a');
    event(b, 200, 'old event on b');
    await deliveredNotification(a, 200);
    await deliveredNotification(b, 200);

    // serve prunes daily on its event loop: it holds it for no statement.
    let first: Awaited<ReturnType<typeof prune>> | undefined;
    expect(await blockingDuring(a.db, async () => void (first = await prune('a')))).toBe(0);
    expect(first).toMatchObject({ sessions: 1, events: 1, notifications: 2, logFiles: 2 });
    expect(a.sessions.get(oldA.id)).toBeNull();
    expect(existsSync(oldA.log)).toBe(false);
    expect(a.sessions.get(recentA.id)).not.toBeNull();
    expect(existsSync(recentA.log)).toBe(true);
    // b's session, its event and its logs (on b's disk) are b's to prune.
    expect(a.sessions.get(oldB.id)).not.toBeNull();
    expect(existsSync(oldB.log)).toBe(true);
    expect(b.events.list({ limit: 10 }).map((e) => e.message)).toContain('old event on b');
    expect(await a.notifications.total()).toBe(0);

    // b's prune finds the shared rows gone already, and takes its own.
    const second = await prune('b');
    expect(second).toMatchObject({ sessions: 1, events: 1, notifications: 0, logFiles: 2 });
    expect(b.sessions.get(oldB.id)).toBeNull();
    expect(existsSync(oldB.log)).toBe(false);
    expect(a.sessions.get(recentA.id)).not.toBeNull();
  });

  it('keeps an old log that a session names by its recorded path, whatever the file is called', async () => {
    const kept = await session('a', 10);
    // A session copied in under a new id keeps its log under its old name.
    const log = logFile('a', '7.ndjson', 200);
    const stderr = logFile('a', '7.stderr.log', 200);
    await a.sessions.setLogPath(kept.id, 'sessions/7.ndjson');
    const orphan = logFile('a', '8.ndjson', 200);

    const report = await prune('a');
    expect(report.logFiles).toBe(1);
    expect(existsSync(log)).toBe(true);
    expect(existsSync(stderr)).toBe(true);
    expect(existsSync(orphan)).toBe(false);
  });
});

describe('start-up leftovers in a fleet', () => {
  it('an instance gives up only its own running gateway jobs', async () => {
    const jobA = await a.gatewayJobs.start('summary', 'cli', null, 'on a', NOW);
    const jobB = await b.gatewayJobs.start('summary', 'cli', null, 'on b', NOW);

    expect(await a.gatewayJobs.abandonRunning(NOW + 1)).toBe(1);
    expect(a.gatewayJobs.get(jobA)).toMatchObject({ outcome: 'failed' });
    expect(a.gatewayJobs.get(jobB)).toMatchObject({ outcome: 'running', error: null });
  });

  it('an instance fails only its own processing conversation summaries', async () => {
    for (const id of ['chat-a', 'chat-b']) {
      await a.conversations.append({
        conversationId: id,
        scope: 'x',
        role: 'user',
        content: 'hi',
        at: NOW,
      });
    }
    const onA = (await a.summaries.claim('chat-a', 0, 0, NOW))!;
    const onB = (await b.summaries.claim('chat-b', 0, 0, NOW))!;

    expect(await b.summaries.abandonProcessing(NOW + 1)).toBe(1);
    expect(await a.summaries.get(onB.id)).toMatchObject({ status: 'failed' });
    expect(await a.summaries.get(onA.id)).toMatchObject({ status: 'processing' });
  });

  it('an instance fails only its own pending chain summaries', async () => {
    const onA = (await session('a', 1)).id;
    const onB = (await session('b', 1)).id;
    await a.sessionRecords.summaryPendingAwaited(onA, NOW);
    await b.sessionRecords.summaryPendingAwaited(onB, NOW);

    expect(a.sessionRecords.abandonPending(NOW + 1)).toBe(1);
    expect(a.sessionRecords.summary(onA)).toMatchObject({ status: 'failed' });
    expect(a.sessionRecords.summary(onB)).toMatchObject({ status: 'pending' });
  });
});

describe('conversation work claimed by one instance', () => {
  beforeEach(async () => {
    await a.conversations.append({
      conversationId: 'chat',
      scope: 'x',
      role: 'user',
      content: 'hi',
      at: NOW,
    });
  });

  it('one summary of a conversation is processing at a time, whichever instance asks', async () => {
    const first = await a.summaries.claim('chat', 0, 0, NOW);
    expect(first).toMatchObject({
      conversationId: 'chat',
      status: 'processing',
      baseSummaryId: null,
    });
    expect(await b.summaries.claim('chat', 0, 0, NOW)).toBeNull();

    await a.summaries.complete(first!.id, 'they said hi', 10, null, NOW);
    const next = await b.summaries.claim('chat', 0, 0, NOW + 1);
    expect(next).toMatchObject({ status: 'processing', baseSummaryId: first!.id });
  });

  it('a conversation’s extraction is claimed by one instance until it is given back or runs out', async () => {
    expect(await a.conversations.claimExtraction('chat', NOW, NOW + 1000)).toBe(true);
    expect(await b.conversations.claimExtraction('chat', NOW + 10, NOW + 1010)).toBe(false);
    // Renewed by its holder.
    expect(await a.conversations.claimExtraction('chat', NOW + 20, NOW + 2000)).toBe(true);
    expect(await b.conversations.claimExtraction('chat', NOW + 1500, NOW + 2500)).toBe(false);

    // Given back: the other takes it; the first cannot give back what it no longer holds.
    await a.conversations.releaseExtraction('chat');
    expect(await b.conversations.claimExtraction('chat', NOW + 1600, NOW + 3000)).toBe(true);
    await a.conversations.releaseExtraction('chat');
    expect(await a.conversations.claimExtraction('chat', NOW + 1700, NOW + 3000)).toBe(false);

    // b dies holding it: the claim runs out.
    expect(await a.conversations.claimExtraction('chat', NOW + 3000, NOW + 4000)).toBe(true);
  });
});
