/**
 * Importing a Claude Ops database built by the Go sidecar's own migrations, with rows in both of
 * its timestamp formats: exact, idempotent, and a dry run that writes nothing.
 */
import { join } from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { importedDecayState } from '../../src/cli/commands/import-claudeops.js';
import {
  type ClaudeOpsImportReport,
  openStores,
  parseClaudeOpsTime,
  readClaudeOpsDatabase,
} from '../../src/db/index.js';
import { buildClaudeOpsDb } from '../helpers/claudeops-db.js';
import { testApp, type TestApp } from '../helpers/db.js';

const NOW = Date.UTC(2026, 5, 10); // 2026-06-10T00:00:00Z
const t = (iso: string) => Date.parse(iso);

/** Rows as the Go sidecar writes them: RFC 3339 from Go, datetime('now') from SQL and the hook. */
function seedGoRows(go: Database.Database): void {
  const session =
    go.prepare(`INSERT INTO sessions (id, tier, model, prompt_file, status, started_at,
    ended_at, exit_code, log_file, context, response, cost_usd, num_turns, duration_ms, trigger,
    prompt_text, parent_session_id, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  session.run(
    1,
    1,
    'haiku',
    '/app/prompts/tier1-observe.md',
    'escalated',
    '2026-06-01T10:00:00Z',
    '2026-06-01T10:02:30Z',
    0,
    '/results/run-20260601-100000.log',
    null,
    'jellyfin is slow',
    0.031,
    3,
    150000,
    'scheduled',
    null,
    null,
    'Checked 12 services; jellyfin was slow.',
  );
  session.run(
    2,
    2,
    'sonnet',
    '/app/prompts/tier2-investigate.md',
    'completed',
    '2026-06-01 10:02:31',
    '2026-06-01 10:05:00',
    0,
    null,
    'Escalated: jellyfin /health 2.9s',
    'Restarted jellyfin',
    0.42,
    11,
    149000,
    'escalation',
    null,
    1,
    null,
  );
  session.run(
    3,
    1,
    'haiku',
    '/app/prompts/tier1-observe.md',
    'running',
    '2026-06-02T08:00:00.123456789Z',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    'manual',
    'check jellyfin',
    null,
    null,
  );
  session.run(
    4,
    1,
    'haiku',
    '/app/prompts/tier1-observe.md',
    'failed',
    '2026-06-03T09:00:00+02:00',
    '2026-06-03T09:00:05+02:00',
    1,
    null,
    null,
    null,
    null,
    null,
    null,
    'api',
    'x',
    null,
    null,
  );
  session.run(
    5,
    1,
    'haiku',
    '/app/prompts/tier1-observe.md',
    'completed',
    'yesterday',
    null,
    0,
    null,
    null,
    null,
    null,
    null,
    null,
    'scheduled',
    null,
    null,
    null,
  );

  const event = go.prepare(`INSERT INTO events (id, session_id, level, service, message, created_at)
    VALUES (?, ?, ?, ?, ?, ?)`);
  event.run(1, 1, 'warning', 'jellyfin', '/health took 2.9s', '2026-06-01T10:01:00Z');
  event.run(2, 2, 'info', 'Jellyfin', 'restarted, healthy in 58s', '2026-06-01 10:04:30');
  // The event-emit.sh hook: the CLI's session UUID in an INTEGER column, a level as given.
  event.run(
    3,
    'a1b2c3d4-0000-4000-8000-000000000000',
    'health-check-success',
    null,
    'docker restart jellyfin',
    '2026-06-01 10:04:00',
  );
  event.run(
    4,
    1,
    'info',
    null,
    'Escalation suppressed (dry run): tier 2 not started',
    '2026-06-01T10:02:30Z',
  );
  event.run(5, 5, 'info', 'plex', 'ok', '2026-06-04T00:00:00Z');

  const memory = go.prepare(`INSERT INTO memories (id, service, category, observation, confidence,
    active, created_at, updated_at, session_id, tier) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // Reinforced by UpdateMemory, which writes datetime('now').
  memory.run(
    1,
    'jellyfin',
    'timing',
    'Takes 60s to start',
    0.9,
    1,
    '2026-05-01T00:00:00Z',
    '2026-06-01 10:02:00',
    1,
    1,
  );
  // Last changed 51 days before the import: past its 30-day grace.
  memory.run(
    2,
    null,
    'dependency',
    'The NAS must be up before the media stack',
    0.5,
    1,
    '2026-03-01T00:00:00Z',
    '2026-04-20T00:00:00Z',
    null,
    2,
  );
  memory.run(
    3,
    'sonarr',
    'Performance',
    'Indexing is slow on Sundays',
    0.6,
    0,
    '2026-05-02T00:00:00Z',
    '2026-05-02T00:00:00Z',
    5,
    1,
  );
  memory.run(
    4,
    'traefik',
    'maintenance',
    'Certificates renew on the 1st',
    1.0,
    1,
    '2026-05-03 12:00:00',
    '2026-05-03 12:00:00',
    null,
    0,
  );

  const cooldown = go.prepare(`INSERT INTO cooldown_actions (id, service, action_type, timestamp,
    success, tier, error, session_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  cooldown.run(1, 'jellyfin', 'restart', '2026-06-01T10:04:00Z', 1, 2, null, 2);
  cooldown.run(2, 'plex', 'redeployment', '2026-06-01 11:00:00', 0, 3, 'timeout', null);
  cooldown.run(3, 'jellyfin', 'reboot', '2026-06-01T12:00:00Z', 1, 3, null, null);

  go.prepare(
    `INSERT INTO health_checks (session_id, service, check_type, status, checked_at)
    VALUES (1, 'jellyfin', 'http', 'healthy', '2026-06-01T10:01:00Z')`,
  ).run();
  go.prepare(
    "INSERT INTO config (key, value) VALUES ('interval', '900'), ('dry_run', 'true')",
  ).run();
}

let app: TestApp;
let goPath: string;

function runImport(dryRun = false, path = goPath): ClaudeOpsImportReport {
  const source = readClaudeOpsDatabase(path);
  try {
    return app.stores.claudeOpsImport.importDatabase(source, {
      now: app.clock.now(),
      dryRun,
      decayState: importedDecayState,
    });
  } finally {
    source.close();
  }
}

/** The watchkeeper id made from a Claude Ops row. */
function target(kind: string, sourceId: number): number {
  const row = app.stores.db
    .prepare('SELECT target_id AS id FROM claudeops_imports WHERE kind = ? AND source_id = ?')
    .get(kind, sourceId) as { id: number } | undefined;
  if (!row) throw new Error(`${kind} ${sourceId} was not imported`);
  return row.id;
}

function tableCounts(): Record<string, number> {
  const count = (table: string) =>
    (app.stores.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  return Object.fromEntries(
    [
      'sessions',
      'events',
      'memories',
      'memory_history',
      'cooldown_actions',
      'claudeops_imports',
    ].map((tbl) => [tbl, count(tbl)]),
  );
}

beforeEach(() => {
  app = testApp();
  app.clock.set(NOW);
  goPath = join(app.dataDir, 'claudeops.db');
  const go = buildClaudeOpsDb(goPath);
  seedGoRows(go);
  go.close();
});

afterEach(() => app.close());

describe('Claude Ops timestamps', () => {
  it('reads both formats, fractions and offsets, as UTC unless a zone is given', () => {
    expect(parseClaudeOpsTime('2026-06-21T14:03:07Z')).toBe(t('2026-06-21T14:03:07Z'));
    expect(parseClaudeOpsTime('2026-06-21 14:03:07')).toBe(t('2026-06-21T14:03:07Z'));
    expect(parseClaudeOpsTime('2026-06-21T14:03:07.123456789Z')).toBe(
      t('2026-06-21T14:03:07.123Z'),
    );
    expect(parseClaudeOpsTime('2026-06-21T16:03:07+02:00')).toBe(t('2026-06-21T14:03:07Z'));
    expect(parseClaudeOpsTime('2026-06-21 14:03:07.5 +0000 UTC')).toBe(
      t('2026-06-21T14:03:07.500Z'),
    );
  });

  it('refuses what is not a time', () => {
    for (const bad of ['yesterday', '2026-02-30 10:00:00', '2026-06-21T25:00:00Z', '', null, 42]) {
      expect(parseClaudeOpsTime(bad)).toBeNull();
    }
  });
});

describe('import-claudeops', () => {
  it('imports sessions, events, memories and cooldowns exactly, and reports what it skipped', () => {
    const r = runImport();
    expect(r.schemaVersion).toBe(7);
    expect(r.counts).toEqual({
      session: { found: 5, imported: 4, already: 0, skipped: 1 },
      event: { found: 5, imported: 5, already: 0, skipped: 0 },
      memory: { found: 4, imported: 4, already: 0, skipped: 0 },
      cooldown: { found: 3, imported: 2, already: 0, skipped: 1 },
    });
    expect(r.problems).toEqual([
      {
        kind: 'session',
        sourceIds: [5],
        count: 1,
        message: 'started_at "yesterday" is not a time',
      },
      {
        kind: 'cooldown',
        sourceIds: [3],
        count: 1,
        message: 'action_type "reboot" is neither restart nor redeployment',
      },
    ]);
    expect(r.notImported.map((x) => `${x.table} ${x.rows}`)).toEqual([
      'health_checks 1',
      'config 2',
    ]);
    expect(r.notImported[1]!.why).toMatch(/\(dry_run, interval\)$/);

    const s1 = app.stores.sessions.get(target('session', 1))!;
    expect(s1).toMatchObject({
      status: 'escalated',
      trigger: 'scheduled',
      tier: 1,
      model: 'haiku',
      prompt: null,
      startedAt: t('2026-06-01T10:00:00Z'),
      endedAt: t('2026-06-01T10:02:30Z'),
      exitCode: 0,
      costUsd: 0.031,
      numTurns: 3,
      durationMs: 150000,
      response: 'jellyfin is slow',
      parentSessionId: null,
    });
    const s2 = app.stores.sessions.get(target('session', 2))!;
    expect(s2).toMatchObject({
      status: 'completed',
      trigger: 'escalation',
      tier: 2,
      parentSessionId: s1.id,
      startedAt: t('2026-06-01T10:02:31Z'),
      endedAt: t('2026-06-01T10:05:00Z'),
    });
    // Still running when Claude Ops stopped: interrupted, as watchkeeper records its own.
    expect(app.stores.sessions.get(target('session', 3))).toMatchObject({
      status: 'interrupted',
      trigger: 'manual',
      prompt: 'check jellyfin',
      startedAt: t('2026-06-02T08:00:00.123Z'),
      endedAt: NOW,
      error: 'still running in Claude Ops when it was imported',
    });
    expect(app.stores.sessions.get(target('session', 4))).toMatchObject({
      status: 'failed',
      trigger: 'api',
      startedAt: t('2026-06-03T07:00:00Z'),
      exitCode: 1,
    });
    const detail = app.stores.db
      .prepare(
        "SELECT detail_json AS d FROM claudeops_imports WHERE kind = 'session' AND source_id = 1",
      )
      .get() as { d: string };
    expect(JSON.parse(detail.d)).toEqual({
      summary: 'Checked 12 services; jellyfin was slow.',
      prompt_file: '/app/prompts/tier1-observe.md',
      log_file: '/results/run-20260601-100000.log',
    });

    const events = app.stores.events.list({ limit: 10 });
    const byMessage = Object.fromEntries(events.map((e) => [e.message, e]));
    expect(byMessage['/health took 2.9s']).toMatchObject({
      sessionId: s1.id,
      source: 'agent',
      level: 'warning',
      service: 'jellyfin',
      createdAt: t('2026-06-01T10:01:00Z'),
    });
    expect(byMessage['restarted, healthy in 58s']).toMatchObject({
      sessionId: s2.id,
      service: 'jellyfin',
      createdAt: t('2026-06-01T10:04:30Z'),
    });
    expect(byMessage['docker restart jellyfin']).toMatchObject({ sessionId: null, level: 'info' });
    expect(byMessage['Escalation suppressed (dry run): tier 2 not started']!.source).toBe('system');
    expect(byMessage['ok']!.sessionId).toBeNull();
    expect(r.notes.map((n) => `${n.kind} ${n.sourceIds.join(',')}: ${n.message}`)).toEqual([
      'event 3: level "health-check-success" stored as info, as Claude Ops reads it',
      'event 3: its session_id "a1b2c3d4-0000-4000-8000-000000000000" is not a session (the CLI\'s id, written by a hook): imported without a session',
      'event 5: its session 5 was not imported: imported without a session',
      'memory 3: category "Performance" is not one of timing, dependency, behavior, remediation, maintenance: imported as behavior',
      'memory 3: its session 5 was not imported: imported without a session',
    ]);

    const m1 = app.stores.memories.get(target('memory', 1))!;
    expect(m1).toMatchObject({
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to start',
      confidence: 0.9,
      active: true,
      createdAt: t('2026-05-01T00:00:00Z'),
      updatedAt: t('2026-06-01T10:02:00Z'),
      lastReinforcedAt: t('2026-06-01T10:02:00Z'),
      sessionId: s1.id,
      tier: 1,
      source: 'import',
      sourceRef: 'Claude Ops memory #1',
      scope: 'ops',
    });
    expect(app.stores.memories.get(target('memory', 3))).toMatchObject({
      category: 'behavior',
      active: false,
      confidence: 0.6,
      sourceRef: 'Claude Ops memory #3, category "Performance"',
    });
    expect(app.stores.memories.get(target('memory', 4))).toMatchObject({
      tier: 0,
      confidence: 1,
      createdAt: t('2026-05-03T12:00:00Z'),
    });
    const history = app.stores.memories.history(m1.id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      action: 'imported',
      oldConfidence: null,
      newConfidence: 0.9,
      source: 'import',
      createdAt: NOW,
    });

    const cooldowns = app.stores.db
      .prepare(
        'SELECT service, action_type AS a, success, message, tier, session_id AS s, created_at AS at FROM cooldown_actions ORDER BY id',
      )
      .all();
    expect(cooldowns).toEqual([
      {
        service: 'jellyfin',
        a: 'restart',
        success: 1,
        message: null,
        tier: 2,
        s: s2.id,
        at: t('2026-06-01T10:04:00Z'),
      },
      {
        service: 'plex',
        a: 'redeployment',
        success: 0,
        message: 'timeout',
        tier: 3,
        s: null,
        at: t('2026-06-01T11:00:00Z'),
      },
    ]);
  });

  it('lets decay go on from when a memory last changed in Claude Ops', async () => {
    runImport();
    const stale = target('memory', 2); // confidence 0.5, last changed 2026-04-20 (51 days ago)
    const fresh = target('memory', 1); // confidence 0.9, last changed 2026-06-01 10:02
    const confidence = (id: number) => app.stores.memories.get(id)!.confidence;

    // No drop at the import, and no fresh grace period either.
    await app.keeper.decay();
    expect(confidence(stale)).toBe(0.5);
    // Its weekly steps fall where they would have: 30 days of grace from 2026-04-20, then weekly.
    app.clock.set(t('2026-06-16T23:59:59Z'));
    await app.keeper.decay();
    expect(confidence(stale)).toBe(0.5);
    app.clock.set(t('2026-06-17T00:00:00Z'));
    await app.keeper.decay();
    expect(confidence(stale)).toBe(0.4);

    app.clock.set(t('2026-07-08T10:01:59Z'));
    await app.keeper.decay();
    expect(confidence(fresh)).toBe(0.9);
    app.clock.set(t('2026-07-08T10:02:00Z'));
    await app.keeper.decay();
    expect(confidence(fresh)).toBe(0.8);
  });

  it('adds nothing the second time, and only what is new after that', () => {
    const first = runImport();
    const after = tableCounts();
    const second = runImport();
    expect(tableCounts()).toEqual(after);
    for (const kind of ['session', 'event', 'memory', 'cooldown'] as const) {
      expect(second.counts[kind]).toEqual({
        found: first.counts[kind].found,
        imported: 0,
        already: first.counts[kind].imported,
        skipped: first.counts[kind].skipped,
      });
    }

    const go = buildClaudeOpsDbAgain();
    go.prepare(
      `INSERT INTO events (id, session_id, level, service, message, created_at)
      VALUES (6, 2, 'critical', 'jellyfin', 'down again', '2026-06-05 00:00:00')`,
    ).run();
    go.close();
    const third = runImport();
    expect(third.counts.event).toEqual({ found: 6, imported: 1, already: 5, skipped: 0 });
    expect(tableCounts().events).toBe(after.events! + 1);
    expect(app.stores.events.list({ limit: 1 })[0]).toMatchObject({
      message: 'down again',
      sessionId: target('session', 2),
    });
  });

  it('imports new rows of a session that retention has pruned since, without the link', async () => {
    runImport();
    const pruned = target('session', 2);
    const plan = await app.stores.retention.plan(t('2026-06-01T10:06:00Z'));
    expect(plan.sessions.map((s) => s.id)).toContain(pruned);
    while (await app.stores.retention.step(plan.cutoff, plan.sessions));
    expect(app.stores.sessions.get(pruned)).toBeNull();

    const go = buildClaudeOpsDbAgain();
    go.prepare(
      `INSERT INTO events (id, session_id, level, service, message, created_at)
      VALUES (6, 2, 'info', 'jellyfin', 'late report', '2026-06-05 00:00:00')`,
    ).run();
    go.close();
    const r = runImport();
    expect(r.counts.event.imported).toBe(1);
    expect(r.counts.session).toEqual({ found: 5, imported: 0, already: 4, skipped: 1 });
    expect(r.notes.map((n) => `${n.kind} ${n.sourceIds.join(',')}: ${n.message}`)).toContain(
      'event 6: its session 2 was pruned here: imported without a session',
    );
    expect(app.stores.events.list({ limit: 1 })[0]).toMatchObject({
      message: 'late report',
      sessionId: null,
    });
  });

  it('writes nothing on a dry run, and reports what an import would do', () => {
    const before = tableCounts();
    const dry = runImport(true);
    expect(tableCounts()).toEqual(before);
    const real = runImport();
    expect({ ...dry, dryRun: false }).toEqual(real);
  });

  it('keeps two Claude Ops databases apart, though their ids are the same', () => {
    runImport();
    const otherPath = join(app.dataDir, 'other.db');
    const other = buildClaudeOpsDb(otherPath, { createdAt: '2026-03-05 08:00:00' });
    seedGoRows(other);
    other.close();
    expect(runImport(false, otherPath).counts.session.imported).toBe(4);
  });

  it('reads a database from before memories existed', () => {
    const oldPath = join(app.dataDir, 'old.db');
    const old = buildClaudeOpsDb(oldPath, { upTo: 5, createdAt: '2026-02-16 09:00:00' });
    old
      .prepare(
        `INSERT INTO sessions (tier, model, prompt_file, status, started_at)
      VALUES (1, 'haiku', '/app/prompts/tier1-observe.md', 'completed', '2026-02-16 09:05:00')`,
      )
      .run();
    old.close();
    const r = runImport(false, oldPath);
    expect(r.schemaVersion).toBe(5);
    expect(r.counts.session.imported).toBe(1);
    expect(r.counts.memory.found).toBe(0);
    const s = app.stores.sessions.get(target('session', 1))!;
    expect(s).toMatchObject({ trigger: 'scheduled', startedAt: t('2026-02-16T09:05:00Z') });
  });

  it('refuses a file that is not a Claude Ops database, naming it', () => {
    // On PostgreSQL the app's store is no file: a SQLite watchkeeper store stands in for it.
    if (app.stores.db.engine === 'postgres') {
      openStores(join(app.dataDir, 'watchkeeper.db')).close();
    }
    expect(() => readClaudeOpsDatabase(join(app.dataDir, 'watchkeeper.db'))).toThrow(
      /watchkeeper\.db is a watchkeeper database, not a Claude Ops one/,
    );
    expect(() => readClaudeOpsDatabase(join(app.dataDir, 'missing.db'))).toThrow(
      /missing\.db: no such file/,
    );
  });
});

/** The same file, opened as the Go sidecar would keep writing to it. */
function buildClaudeOpsDbAgain(): Database.Database {
  return new Database(goPath);
}
