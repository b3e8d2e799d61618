/**
 * A fleet's PostgreSQL goes away for more than ten seconds under load, and comes back: two real
 * `serve` processes with the default embeddings (the local model), each running a session, an
 * API writer posting memories and an import under way. The database is cut by a TCP proxy in
 * front of the run's server (the shared server is never stopped); the cut lasts until every
 * member's embedding catch-up has met it (a log line), and at least ten seconds. Then: no member
 * exited or met an unhandled rejection, every 201 of the API is a row and no other row exists,
 * every event of a session's raw log is a row, the held markers were written when the database
 * returned, no session is left running, the import is complete once run again, and each member
 * recorded the outage as one system event.
 * Needs dist/ (serve runs bin/watchkeeper.js).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

import {
  FLEET_TOKEN,
  type FleetMember,
  removeFleetMember,
  sessionEnded,
  sessionOf,
  startFleetMember,
  startRun,
} from '../helpers/fleet.js';
import { waitFor } from '../helpers/wait.js';
import { logged, logLines } from '../helpers/log-lines.js';
import {
  type AsyncFreshDatabase,
  freshDatabase,
  postgresAvailable,
  skipWithoutPostgres,
} from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** Longer than the embedding catch-up's period: the outage the defect was seen with. */
const OUTAGE_MS = 10_500;
const IMPORTED = 12;

const MEMBER_ENV = {
  // The default embeddings: the local model, in a worker of each serve.
  WATCHKEEPER_EMBEDDINGS: 'local',
  // The loops' pause lines are debug lines.
  WATCHKEEPER_LOG_LEVEL: 'debug',
};

const events = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `say [EVENT:info:svc-${tag}] ${tag} event ${i + 1}`);

/** The markers `[EVENT:...]` the CLI printed into a session's raw log (sessions/ID.ndjson). */
function rawLogEvents(m: FleetMember, id: number): number {
  const text = readFileSync(join(m.dataDir, 'sessions', `${id}.ndjson`), 'utf8');
  let n = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    const msg = JSON.parse(line) as {
      type: string;
      message?: { content?: { type: string; text?: string }[] };
    };
    if (msg.type !== 'assistant') continue;
    for (const c of msg.message?.content ?? []) n += (c.text?.match(/\[EVENT:/g) ?? []).length;
  }
  return n;
}

function importFile(): string {
  const lines = [JSON.stringify({ format: 'watchkeeper-memory/1', memories: IMPORTED })];
  for (let i = 1; i <= IMPORTED; i++) {
    lines.push(
      JSON.stringify({
        type: 'memory',
        id: i,
        text: `Imported fact ${i}: queue ${i} drains in ${i} minutes`,
        service: `import-${i}`,
        category: 'timing',
        confidence: 0.7,
        created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

describe('a PostgreSQL outage under load', () => {
  skipWithoutPostgres();

  let db: AsyncFreshDatabase | undefined;
  let proxy: TcpProxy | undefined;
  const members: FleetMember[] = [];
  let scratch = '';

  afterAll(async () => {
    proxy?.restore();
    for (const m of members.splice(0)) await removeFleetMember(m);
    await proxy?.close();
    await db?.drop().catch(() => undefined);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** Rows on a connection of the test's own, straight to the server (never through the proxy). */
  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: db!.url });
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };

  it('kills no member, loses no row and writes the held markers when it returns', async () => {
    if (!postgresAvailable()) return;
    scratch = mkdtempSync(join(tmpdir(), 'watchkeeper-outage-serve-'));
    db = await freshDatabase();
    const direct = new URL(db.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const url = proxy.via(db.url);
    const [a, b] = await Promise.all([
      startFleetMember('outage-a', url, MEMBER_ENV),
      startFleetMember('outage-b', url, MEMBER_ENV),
    ]);
    members.push(a!, b!);
    const both = [a!, b!];
    try {
      await outageUnderLoad(a!, b!);
    } catch (err) {
      // A failure shows what each member logged meanwhile.
      const logs = both.map((m) => `${m.instance} logged:\n${m.log().slice(-6000)}`);
      (err as Error).message += `\n${logs.join('\n')}`;
      throw err;
    }
  }, 150_000);

  async function outageUnderLoad(a: FleetMember, b: FleetMember): Promise<void> {
    const both = [a, b];
    for (const m of both) {
      await waitFor(`${m.instance}'s embedding model`, () =>
        logged(m.log(), 'the embedding model is loaded'),
      );
    }

    // A session on each: events before the cut, then (gated) events while it lasts. On a, the
    // session goes on after the database is back; on b, it ends while the database is away.
    const gate = (name: string) => join(scratch, name);
    const runA = await startRun(a, [
      ...events('a-before', 20),
      `arrive ${gate('a-in')}`,
      `await ${gate('cut')}`,
      ...events('a-during', 40),
      `arrive ${gate('a-printed')}`,
      `await ${gate('back')}`,
      ...events('a-after', 10),
    ]);
    const runB = await startRun(b, [
      ...events('b-before', 20),
      `arrive ${gate('b-in')}`,
      `await ${gate('cut')}`,
      ...events('b-during', 40),
    ]);
    const sessionA = await sessionOf(a, runA);
    const sessionB = await sessionOf(b, runB);
    await waitFor('both sessions stored their first events', async () => {
      const rows = await query<{ n: string }>(
        "SELECT count(*) AS n FROM events WHERE source = 'agent' AND session_id = ANY($1)",
        [[sessionA, sessionB]],
      );
      return Number(rows[0]!.n) === 40;
    });

    // The API writer: one memory after another, until told to stop; every answer counted, the
    // answer to \`writer-i\` at index i - 1.
    const statuses: number[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 1; writing; i++) {
        const res = await a
          .request('/api/v1/memories', {
            json: {
              category: 'behavior',
              service: `writer-${i}`,
              observation: `Writer fact ${i}: worker ${i} retries after ${i} seconds`,
            },
          })
          .catch(() => null);
        statuses.push(res?.status ?? 0);
        await res?.text();
      }
    })();
    await waitFor('the writer stored some memories', () => statuses.includes(201));

    // The import, under way when the database goes.
    const body = importFile();
    const importing = fetch(`${b.url}/api/v1/memories/import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${FLEET_TOKEN}` },
      body,
    }).then(
      (r) => r.status,
      () => 0,
    );

    const cutAt = Date.now();
    proxy!.cut();
    writeFileSync(gate('cut'), '');
    const paused = (m: FleetMember) =>
      logLines(m.log()).some(
        (l) => l.msg === 'background loop paused' && l.loop === 'embedding catch-up',
      );
    for (const m of both) await waitFor(`${m.instance}'s catch-up to pause`, () => paused(m));
    await waitFor('a to hold its markers', () =>
      logged(a.log(), /^the database is unreachable; holding this session's markers/),
    );
    await waitFor('b to end its session while the database is away', () =>
      logged(b.log(), /^the session ended while the database was unreachable/),
    );
    await waitFor('the writer to be refused', () => statuses.some((s) => s !== 201));
    const firstImportStatus = await importing;
    await waitFor('the outage to last', () => Date.now() - cutAt >= OUTAGE_MS);
    for (const m of both) expect(m.log()).not.toMatch(/reachable again/);

    proxy!.restore();
    const writtenBefore = statuses.filter((s) => s === 201).length;
    for (const m of both) {
      await waitFor(
        `${m.instance}'s background work to resume`,
        () => logged(m.log(), 'the database is reachable again; background work resumed'),
        60_000,
      );
    }
    await waitFor('a to store its held markers', () =>
      logged(a.log(), 'the database is reachable again; stored the markers held for this session'),
    );
    writeFileSync(gate('back'), '');
    const endedA = await sessionEnded(a, sessionA, 30_000);
    await waitFor(
      'b to record its session',
      () => logged(b.log(), 'the database is reachable again; recorded the session as failed'),
      40_000,
    );
    const endedB = await sessionEnded(b, sessionB);
    await waitFor(
      'the writer to store again',
      () => statuses.filter((s) => s === 201).length >= writtenBefore + 3,
      30_000,
    );
    writing = false;
    await writer;
    const secondImport = await fetch(`${b.url}/api/v1/memories/import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${FLEET_TOKEN}` },
      body,
    });
    expect(secondImport.status).toBe(200);

    // No member exited, and nothing escaped the loops' handling.
    for (const m of both) {
      expect(() => process.kill(m.pid, 0)).not.toThrow();
      expect(logged(m.log(), /^unhandled rejection/)).toBe(false);
      expect(await m.get('/api/v1/health')).toEqual({ status: 'ok' });
    }
    // Every 201 is one row. A refused write leaves none, except at most the one in flight when
    // the connection was cut: a COMMIT the server ran whose answer never came back cannot be told
    // from one it never ran, by this client or any other.
    const writerRows = await query<{ service: string; n: string }>(
      "SELECT service, count(*) AS n FROM memories WHERE service LIKE 'writer-%' GROUP BY service",
    );
    const stored = new Map(writerRows.map((r) => [r.service, Number(r.n)]));
    expect([...stored.values()].every((n) => n === 1)).toBe(true);
    const answered = (i: number) => statuses[i - 1];
    const lostAnswers = [...stored.keys()]
      .map((s) => Number(s.slice('writer-'.length)))
      .filter((i) => answered(i) !== 201);
    expect(lostAnswers.map(answered).every((s) => s === 503)).toBe(true);
    expect(lostAnswers.length).toBeLessThanOrEqual(1);
    statuses.forEach((s, i) => {
      if (s === 201) expect(stored.get(`writer-${i + 1}`)).toBe(1);
    });
    expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    // Every event of each raw log is a row; nothing is left running or unstored.
    expect(endedA).toMatchObject({ status: 'completed', error: null });
    expect(endedB.status).toBe('failed');
    expect(endedB.error).toContain('stored only when it returned');
    for (const [m, id, n] of [
      [a, sessionA, 70],
      [b, sessionB, 60],
    ] as const) {
      expect(rawLogEvents(m, id)).toBe(n);
      const rows = await query<{ n: string }>(
        "SELECT count(*) AS n FROM events WHERE source = 'agent' AND session_id = $1",
        [id],
      );
      expect(Number(rows[0]!.n)).toBe(n);
      expect(existsSync(join(m.dataDir, 'sessions', `${id}.unstored.ndjson`))).toBe(false);
    }
    expect(await query("SELECT id FROM sessions WHERE status = 'running'")).toEqual([]);
    // b's failed session was notified while the database was away: recorded once it answered.
    const notified = await query('SELECT id FROM notifications WHERE session_id = $1', [sessionB]);
    expect(notified).toHaveLength(1);
    // The import: every record once, whether the first run finished or the outage cut it.
    expect([200, 503]).toContain(firstImportStatus);
    const imported = await query<{ service: string; n: string }>(
      "SELECT service, count(*) AS n FROM memories WHERE service LIKE 'import-%' GROUP BY service",
    );
    expect(imported).toHaveLength(IMPORTED);
    expect(imported.every((r) => Number(r.n) === 1)).toBe(true);
    // One system event per member for the outage, naming the catch-up among the paused loops.
    const outageEvents = await query<{ instance: string; message: string }>(
      "SELECT instance, message FROM events WHERE source = 'system' AND message LIKE 'The database was unreachable%' ORDER BY instance",
    );
    expect(outageEvents.map((e) => e.instance)).toEqual(['outage-a', 'outage-b']);
    for (const e of outageEvents) expect(e.message).toContain('embedding catch-up');
  }
});
