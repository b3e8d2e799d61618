/**
 * migrate-store's copy on a real PostgreSQL: every table copied and verified, an interrupted
 * copy resumed to the same result, and a second store moved in under another instance with ids
 * that do not collide and references that still hold.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';

import {
  connectCopyTarget,
  copyStore,
  migrateCopyTarget,
  openCopySource,
  prepareCopy,
  verifyCopy,
} from '../../src/db/index.js';
import { type AsyncFreshDatabase, skipWithoutPostgres } from '../helpers/postgres.js';
import { copyFixtures } from '../helpers/store-copy.js';

skipWithoutPostgres();

const fixtures = copyFixtures();
const { cleanups, store } = fixtures;

async function target(): Promise<AsyncFreshDatabase> {
  const db = await fixtures.target();
  migrateCopyTarget(db.url);
  return db;
}

/** Copies (or resumes) and verifies; returns the checks and the copy's result. */
async function copy(
  path: string,
  url: string,
  instance: string,
  opts: { batchSize?: number; maxBatches?: number } = {},
) {
  const source = openCopySource(path);
  const pool = await connectCopyTarget(url);
  try {
    const prepared = await prepareCopy(source.db, pool);
    const { result, plan } = await copyStore(
      { source: source.db, sourceName: source.path, pool, instance, now: () => 1, ...opts },
      prepared,
    );
    const checks = result.complete ? await verifyCopy(source.db, pool, plan) : [];
    return { result, checks };
  } finally {
    await pool.end();
    source.close();
  }
}

async function query<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('migrate-store copy', () => {
  it('copies every table of a store and verifies counts and checksums', async () => {
    const db = await target();
    const { result, checks } = await copy(store('a'), db.url, 'cluster-a');
    expect(result.complete).toBe(true);
    const tables = checks.map((c) => c.table);
    for (const t of [
      'sessions',
      'events',
      'memories',
      'memory_history',
      'memory_tombstones',
      'cooldown_actions',
      'conversations',
      'conversation_messages',
      'graph_sessions',
      'ideas',
      'entities',
      'event_groups',
      'claudeops_imports',
      'notification_deliveries',
    ]) {
      expect(tables).toContain(t);
    }
    expect(tables).not.toContain('memories_fts');
    expect(tables).not.toContain('schema_migrations');
    // Referenced tables come first.
    expect(tables.indexOf('sessions')).toBeLessThan(tables.indexOf('events'));
    expect(tables.indexOf('gateway_jobs')).toBeLessThan(tables.indexOf('sessions'));
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks.find((c) => c.table === 'events')).toMatchObject({
      sourceRows: 3,
      targetRows: 3,
    });

    const sessions = await query(db.url, 'SELECT id, instance, log_path FROM sessions ORDER BY id');
    expect(sessions).toEqual([
      { id: '1', instance: 'cluster-a', log_path: 'sessions/1.ndjson' },
      { id: '2', instance: 'cluster-a', log_path: 'sessions/2.ndjson' },
    ]);
    const memories = await query(db.url, 'SELECT id, instance FROM memories ORDER BY id');
    expect(memories.map((m) => m.instance)).toEqual(['cluster-a', 'fleet', 'cluster-a']);
    // Every row that names its instance names this one; a shared memory stays shared.
    const named = await query(
      db.url,
      `SELECT (SELECT instance FROM gateway_jobs) AS job, (SELECT instance FROM notifications)
        AS notification, (SELECT extract_instance FROM conversations) AS claim`,
    );
    expect(named).toEqual([{ job: 'cluster-a', notification: 'cluster-a', claim: 'cluster-a' }]);
    // The words around an idea, kept by SQLite in its full-text index, are a table here.
    const context = await query(
      db.url,
      'SELECT idea_id, turn, near FROM idea_context ORDER BY idea_id',
    );
    expect(context).toEqual([
      { idea_id: '1', turn: 'the nightly vacuum holds locks', near: 'replication lag' },
      { idea_id: '2', turn: '', near: '' },
    ]);
    expect(checks.find((c) => c.table === 'idea_context')).toMatchObject({
      sourceRows: 2,
      ok: true,
    });
    // Event groups are made by the target as the events arrive; the acknowledgement is kept.
    const groups = await query(
      db.url,
      'SELECT service, count, acked_by FROM event_groups ORDER BY service',
    );
    expect(groups).toEqual([
      { service: '', count: '1', acked_by: null },
      { service: 'postgres', count: '2', acked_by: 'ops' },
    ]);
    // New rows get ids past the copy's.
    const next = await query<{ id: string }>(
      db.url,
      `INSERT INTO memories (category, observation, confidence, base_confidence, created_at,
        updated_at, last_reinforced_at) VALUES ('timing', 'x', 0.5, 0.5, 1, 1, 1) RETURNING id`,
    );
    expect(Number(next[0]!.id)).toBeGreaterThan(3);
  });

  it('resumes an interrupted copy to the same result as one run through', async () => {
    const path = store('a');
    const straight = await target();
    const whole = await copy(path, straight.url, 'cluster-a');

    const db = await target();
    const first = await copy(path, db.url, 'cluster-a', { batchSize: 1, maxBatches: 7 });
    expect(first.result.complete).toBe(false);
    const copied = await query<{ n: string }>(
      db.url,
      'SELECT sum(copied) AS n FROM store_copy_tables',
    );
    expect(Number(copied[0]!.n)).toBe(7);
    const second = await copy(path, db.url, 'cluster-a', { batchSize: 2, maxBatches: 5 });
    expect(second.result).toMatchObject({ resumed: true, complete: false });
    const last = await copy(path, db.url, 'cluster-a', { batchSize: 3 });
    expect(last.result).toMatchObject({ resumed: true, complete: true });
    expect(last.checks.filter((c) => !c.ok)).toEqual([]);
    expect(last.checks.map((c) => [c.table, c.targetChecksum])).toEqual(
      whole.checks.map((c) => [c.table, c.targetChecksum]),
    );
    // Run again once finished: nothing is copied twice.
    const again = await copy(path, db.url, 'cluster-a');
    expect(again.result).toMatchObject({ alreadyCopied: true, complete: true });
    expect(again.checks.filter((c) => !c.ok)).toEqual([]);
    const events = await query<{ n: string }>(db.url, 'SELECT count(*) AS n FROM events');
    expect(Number(events[0]!.n)).toBe(3);
  });

  it('moves a second store in under another instance with its own ids and references', async () => {
    const db = await target();
    await copy(store('a'), db.url, 'cluster-a');
    const { result, checks } = await copy(store('b'), db.url, 'cluster-b');
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    const offsets = new Map(result.tables.map((t) => [t.table, t.idOffset]));
    expect(offsets.get('sessions')).toBe(2);
    expect(offsets.get('memories')).toBe(3);

    const sessions = await query(
      db.url,
      `SELECT id, parent_session_id, summary_job_id FROM sessions WHERE instance = 'cluster-b' ORDER BY id`,
    );
    expect(sessions).toEqual([
      { id: '3', parent_session_id: null, summary_job_id: '2' },
      { id: '4', parent_session_id: '3', summary_job_id: null },
    ]);
    const memories = await query(
      db.url,
      `SELECT m.id, m.superseded_by, m.merged_into, s.instance AS session_instance
       FROM memories m JOIN sessions s ON s.id = m.session_id WHERE m.id > 3 ORDER BY m.id`,
    );
    expect(memories).toEqual([
      { id: '4', superseded_by: null, merged_into: null, session_instance: 'cluster-b' },
      { id: '5', superseded_by: '4', merged_into: null, session_instance: 'cluster-b' },
      { id: '6', superseded_by: null, merged_into: '4', session_instance: 'cluster-b' },
    ]);
    const events = await query(
      db.url,
      `SELECT e.instance, e.session_id, g.count FROM events e JOIN event_groups g ON g.id = e.group_id
       WHERE e.message = 'replication lag 30 s' ORDER BY e.id`,
    );
    // One group of identical events across the fleet, counting both instances' events.
    expect(events).toEqual([
      { instance: 'cluster-a', session_id: '1', count: '4' },
      { instance: 'cluster-a', session_id: '2', count: '4' },
      { instance: 'cluster-b', session_id: '3', count: '4' },
      { instance: 'cluster-b', session_id: '4', count: '4' },
    ]);
    // One entity per name and type: the second store's PostgreSQL is the first one's.
    const entities = await query(db.url, 'SELECT id, name FROM entities ORDER BY id');
    expect(entities).toEqual([
      { id: '1', name: 'PostgreSQL' },
      { id: '2', name: 'vacuum-a' },
      { id: '4', name: 'vacuum-b' },
    ]);
    const links = await query(
      db.url,
      `SELECT i.content, e.name FROM idea_entities ie JOIN ideas i ON i.id = ie.idea_id
       JOIN entities e ON e.id = ie.entity_id WHERE i.id > 2 ORDER BY i.id, e.id`,
    );
    expect(links).toEqual([
      { content: 'lag comes from the nightly vacuum', name: 'PostgreSQL' },
      { content: 'lag comes from the nightly vacuum', name: 'vacuum-b' },
      { content: 'move vacuum to 03:00', name: 'vacuum-b' },
    ]);
    const graph = await query(
      db.url,
      `SELECT g.session, g.watchkeeper_session_id, (SELECT count(*) FROM ideas i
         WHERE i.session = g.session) AS ideas FROM graph_sessions g WHERE g.kind = 'watchkeeper'
       ORDER BY g.session`,
    );
    expect(graph).toEqual([
      { session: 'wk-1', watchkeeper_session_id: '1', ideas: '2' },
      { session: 'wk-3', watchkeeper_session_id: '3', ideas: '2' },
    ]);
    const imports = await query(
      db.url,
      `SELECT source, kind, target_id FROM claudeops_imports WHERE source = 'db-b' ORDER BY kind`,
    );
    expect(imports).toEqual([
      { source: 'db-b', kind: 'event', target_id: '6' },
      { source: 'db-b', kind: 'session', target_id: '4' },
    ]);
    // A deleted memory's tombstone follows its memory's ids, under the copy's instance.
    const tombstones = await query(
      db.url,
      'SELECT memory_id, deleted_by, instance FROM memory_tombstones ORDER BY id',
    );
    expect(tombstones).toEqual([
      { memory_id: '99', deleted_by: 'cli (ops)', instance: 'cluster-a' },
      { memory_id: '102', deleted_by: 'cli (ops)', instance: 'cluster-b' },
    ]);
    // The services catalog both instances know keeps the first one's row.
    expect(result.tables.find((t) => t.table === 'services')?.kept).toBe(1);
  });

  it('refuses to run beside another copy into the same instance', async () => {
    const db = await target();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query(
      "SELECT pg_advisory_lock(hashtext('watchkeeper migrate-store'), hashtext('cluster-a'))",
    );
    await expect(copy(store('a'), db.url, 'cluster-a')).rejects.toThrow(
      'another migrate-store is copying into instance cluster-a right now; wait for it to end',
    );
    const other = await copy(store('b'), db.url, 'cluster-b');
    expect(other.checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('refuses a conversation id another instance already has', async () => {
    const db = await target();
    await copy(store('a'), db.url, 'cluster-a');
    await expect(copy(store('a'), db.url, 'cluster-b')).rejects.toThrow(
      /cannot copy conversations: the target database already holds a row with the key id = \["c1-a"\]/,
    );
  });
});
