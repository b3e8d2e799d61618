/**
 * A fleet end to end: two real `serve` processes (instances cluster-a and cluster-b, each with
 * its own data folder) on one PostgreSQL database, their sessions run by the fleet fixture CLI
 * and started over each one's API. Each runs only its own sessions, also when both run at once;
 * both reinforce the same shared memories at once (in sessions, and over both APIs) and every
 * reinforcement counts; a memory shared by a rule reaches the other instance's next context block
 * (and an unshared one does not); a shared service's restart limit, used on one, refuses the
 * restart on the other; after `kill -9` of one, the other keeps working and marks the dead one's
 * running session interrupted once its lease runs out. Either dashboard lists the other's
 * sessions and events with an instance filter.
 * All of it twice: with the database on loopback, and one network hop away, behind a proxy that
 * holds every chunk 2 ms in each direction (bench/delay-proxy.js), between both serves (and their
 * sessions' guards) and PostgreSQL.
 * Needs dist/ (serve and the guard run bin/watchkeeper.js).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type DelayProxy, startDelayProxy } from '../../bench/delay-proxy.js';
import { DEFAULT_POLICY, roundConfidence } from '../../src/memory/policy.js';
import {
  type ApiSession,
  type FleetMember,
  removeFleetMember,
  sessionEnded,
  sessionOf,
  startFleetMember,
  startRun,
} from '../helpers/fleet.js';
import { waitFor } from '../helpers/wait.js';
import { logLines } from '../helpers/log-lines.js';
import {
  type AsyncFreshDatabase,
  freshDatabase,
  postgresAvailable,
  skipWithoutPostgres,
} from '../helpers/postgres.js';

/** Both members' settings: a short lease, one restart per window, shared-db shared both ways. */
const FLEET_ENV = {
  WATCHKEEPER_LEASE: '6s',
  WATCHKEEPER_RESTART_LIMIT: '1',
  WATCHKEEPER_FLEET_MEMORY_SERVICES: 'shared-db',
  WATCHKEEPER_FLEET_MEMORY_CATEGORIES: 'dependency',
  WATCHKEEPER_FLEET_COOLDOWN_SERVICES: 'shared-db',
};

/** What cluster-a learns that the rules share: two by the service, one by the category. */
const SHARED = [
  { category: 'timing', service: 'shared-db', text: 'Failover to the standby takes 30 seconds' },
  { category: 'maintenance', service: 'shared-db', text: 'Nightly backups lock the orders table' },
  { category: 'dependency', service: 'queue', text: 'Workers start only once RabbitMQ answers' },
];
/** The fixture steps that state them, each as a marker of its own. */
const SAY_SHARED = SHARED.map((m) => `say [MEMORY:${m.category}:${m.service}] ${m.text}`);
/** A memory about a service no rule shares: cluster-a's alone. */
const OWN = 'The web pods on this cluster cache DNS answers for ten minutes';

interface ApiMemory {
  id: number;
  service: string | null;
  observation: string;
  confidence: number;
  active: boolean;
  instance: string;
  shared: boolean;
}
interface ApiHistory {
  id: number;
  action: string;
  session_id: number | null;
  old_confidence: number | null;
  new_confidence: number | null;
}
interface ApiCooldowns {
  services: {
    service: string;
    action: string;
    count: number;
    limit: number;
    in_cooldown: boolean;
  }[];
  recent_actions: { service: string; session_id: number | null; instance: string }[];
  blocked: { service: string; session_id: number | null; reason: string }[];
}

/** Where the database is: on loopback, or behind the proxy (ms held per chunk and direction). */
const HOPS = [
  { where: 'on loopback', delayMs: 0 },
  { where: 'one network hop away', delayMs: 2 },
];

describe.each(HOPS)('a fleet of two serve processes on one PostgreSQL database $where', (hop) => {
  skipWithoutPostgres();

  let db: AsyncFreshDatabase | undefined;
  let proxy: DelayProxy | undefined;
  let a: FleetMember | undefined;
  let b: FleetMember | undefined;
  let scratch = '';
  /** Sessions by name: A1, A2 and A3 ran on cluster-a, B1 and B2 on cluster-b. */
  const ids: Record<string, number> = {};
  /** Process groups of fixture CLIs that may outlive a killed serve. */
  const groups: number[] = [];

  const members = () => {
    if (!a || !b) throw new Error('the fleet did not start (see the first failure)');
    return { a, b };
  };
  const session = (name: string) => {
    const id = ids[name];
    if (id === undefined) throw new Error(`session ${name} never started (see test (a))`);
    return id;
  };

  beforeAll(async () => {
    if (!postgresAvailable()) return;
    scratch = mkdtempSync(join(tmpdir(), 'watchkeeper-fleet-test-'));
    db = await freshDatabase();
    if (hop.delayMs > 0) proxy = await startDelayProxy(db.url, hop.delayMs);
    const url = proxy?.url ?? db.url;
    // Both at once on a fresh database: one migrates, the other waits for it.
    const started = await Promise.allSettled([
      startFleetMember('cluster-a', url, FLEET_ENV),
      startFleetMember('cluster-b', url, FLEET_ENV),
    ]);
    if (started[0].status === 'fulfilled') a = started[0].value;
    if (started[1].status === 'fulfilled') b = started[1].value;
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }, 120_000);

  afterAll(async () => {
    for (const g of groups) {
      try {
        process.kill(-g, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await Promise.all([a, b].filter((m) => m !== undefined).map((m) => removeFleetMember(m)));
    await proxy?.stop();
    await db?.drop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('(a) runs each instance’s sessions on that instance only, also while both run', async () => {
    const { a, b } = members();
    // A1 learns the shared memories and one of its own, and uses shared-db's one restart.
    ids.A1 = await sessionOf(
      a,
      await startRun(a, [
        'say [EVENT:info:web] A1 checked web',
        ...SAY_SHARED,
        `say [MEMORY:behavior:web] ${OWN}`,
        'restart shared-db',
        'restart web',
      ]),
    );
    expect(await sessionEnded(a, ids.A1)).toMatchObject({ status: 'completed', error: null });

    // A2 and B1 run at the same time: each waits at a barrier until both have started.
    const go = join(scratch, 'go');
    const [ra, rb] = await Promise.all([
      startRun(a, [
        `arrive ${join(scratch, 'a2')}`,
        `await ${go}`,
        'say [EVENT:info:web] A2 checked web',
        ...SAY_SHARED,
      ]),
      startRun(b, [
        `arrive ${join(scratch, 'b1')}`,
        `await ${go}`,
        'say [EVENT:info:web] B1 checked web',
        ...SAY_SHARED,
        'restart shared-db',
        'restart web',
      ]),
    ]);
    [ids.A2, ids.B1] = await Promise.all([sessionOf(a, ra), sessionOf(b, rb)]);
    await waitFor('both sessions at the barrier', async () => {
      const [x, y] = await Promise.all([
        b.get<ApiSession>(`/api/v1/sessions/${ids.A2}`),
        a.get<ApiSession>(`/api/v1/sessions/${ids.B1}`),
      ]);
      return x.status === 'running' && y.status === 'running';
    });
    // Each sees the other's running session, with the instance that runs it.
    expect(await b.get<ApiSession>(`/api/v1/sessions/${ids.A2}`)).toMatchObject({
      status: 'running',
      instance: 'cluster-a',
    });
    expect(await a.get<ApiSession>(`/api/v1/sessions/${ids.B1}`)).toMatchObject({
      status: 'running',
      instance: 'cluster-b',
    });
    writeFileSync(go, '');
    const [endA2, endB1] = await Promise.all([sessionEnded(a, ids.A2), sessionEnded(b, ids.B1)]);
    expect(endA2).toMatchObject({ status: 'completed', error: null, instance: 'cluster-a' });
    expect(endB1).toMatchObject({ status: 'completed', error: null, instance: 'cluster-b' });

    // Both lists show every session, each with its instance.
    for (const m of [a, b]) {
      const list = await m.get<{ sessions: ApiSession[] }>('/api/v1/sessions?limit=50');
      expect(
        list.sessions.map((s) => ({ id: s.id, instance: s.instance, status: s.status })),
      ).toEqual(
        expect.arrayContaining([
          { id: ids.A1, instance: 'cluster-a', status: 'completed' },
          { id: ids.A2, instance: 'cluster-a', status: 'completed' },
          { id: ids.B1, instance: 'cluster-b', status: 'completed' },
        ]),
      );
      expect(list.sessions).toHaveLength(3);
    }
    // Only its own instance's CLI ran each session, and only its own serve started it.
    for (const name of ['A1', 'A2']) {
      expect(a.fixture(session(name))).toMatchObject({ instance: 'cluster-a' });
      expect(b.fixture(session(name))).toBeNull();
    }
    expect(b.fixture(ids.B1)).toMatchObject({ instance: 'cluster-b' });
    expect(a.fixture(ids.B1)).toBeNull();
    const started = (m: FleetMember) =>
      logLines(m.log())
        .filter((l) => l.msg === 'session started')
        .map((l) => l.session);
    expect(started(a).sort()).toEqual([ids.A1, ids.A2].sort());
    expect(started(b)).toEqual([ids.B1]);
  });

  it('(b) counts both instances’ reinforcements of the shared memories', async () => {
    const { a, b } = members();
    const [A1, A2, B1] = [session('A1'), session('A2'), session('B1')];
    const { newConfidence, reinforceStep } = DEFAULT_POLICY;
    const once = roundConfidence(newConfidence + reinforceStep);
    const twice = roundConfidence(once + reinforceStep);
    for (const fact of SHARED) {
      // One memory, shared, the same on both dashboards.
      const seen = await Promise.all(
        [a, b].map(async (m) => {
          const { memories } = await m.get<{ memories: ApiMemory[] }>(
            `/api/v1/memories?service=${fact.service}`,
          );
          return memories
            .filter((x) => x.observation === fact.text)
            .map((x) => ({ id: x.id, instance: x.instance }));
        }),
      );
      expect(seen[0], fact.text).toEqual([{ id: expect.any(Number), instance: 'fleet' }]);
      expect(seen[1]).toEqual(seen[0]);
      const id = seen[0]![0]!.id;
      const memory = await b.get<ApiMemory>(`/api/v1/memories/${id}`);
      const { history } = await b.get<{ history: ApiHistory[] }>(`/api/v1/memories/${id}/history`);
      const reinforced = history.filter((h) => h.action === 'reinforced');
      // Learned by A1; reinforced by A2 and B1 at the same time, both counted: the second
      // reinforcement builds on the first, as if they had come one after the other.
      expect({
        observation: fact.text,
        confidence: memory.confidence,
        createdBy: history.filter((h) => h.action === 'created').map((h) => h.session_id),
        reinforcedBy: reinforced.map((h) => h.session_id).sort(),
        steps: reinforced
          .map((h) => [h.old_confidence, h.new_confidence])
          .sort((x, y) => (x[1] ?? 0) - (y[1] ?? 0)),
      }).toEqual({
        observation: fact.text,
        confidence: twice,
        createdBy: [A1],
        reinforcedBy: [A2, B1].sort(),
        steps: [
          [newConfidence, once],
          [once, twice],
        ],
      });
    }
  });

  it('(b) counts every reinforcement when both APIs reinforce one memory at once', async () => {
    const { a, b } = members();
    const fact = {
      service: 'shared-db',
      category: 'behavior',
      observation: 'Vacuum crawls while the replica is rebuilding',
    };
    const first = await a.request('/api/v1/memories', { json: fact });
    expect(first.status).toBe(201);
    const { id, instance } = (await first.json()) as ApiMemory;
    expect(instance).toBe('fleet');
    // Two operators on each dashboard say it again, all at the same moment.
    const again = await Promise.all(
      [a, b, a, b].map((m) => m.request('/api/v1/memories', { json: fact })),
    );
    expect(
      await Promise.all(
        again.map(async (r) => ({ status: r.status, id: ((await r.json()) as ApiMemory).id })),
      ),
    ).toEqual(Array.from({ length: 4 }, () => ({ status: 200, id })));
    const { history } = await b.get<{ history: ApiHistory[] }>(`/api/v1/memories/${id}/history`);
    // Each built on the one before (to the 1.0 cap), as if they had come one after the other.
    const step = (n: number) =>
      roundConfidence(DEFAULT_POLICY.newConfidence + n * DEFAULT_POLICY.reinforceStep);
    expect(
      history
        .filter((h) => h.action === 'reinforced')
        .sort((x, y) => x.id - y.id)
        .map((h) => [h.old_confidence, h.new_confidence]),
    ).toEqual([
      [step(0), step(1)],
      [step(1), step(2)],
      [step(2), step(3)],
      [step(3), step(4)],
    ]);
    expect((await a.get<ApiMemory>(`/api/v1/memories/${id}`)).confidence).toBe(step(4));
  });

  it('(c) gives the other instance’s next session the shared memory, not the unshared one', async () => {
    const { a, b } = members();
    const B1 = session('B1');
    const own = await a.get<{ memories: ApiMemory[] }>('/api/v1/memories?service=web');
    expect(own.memories.map((m) => ({ observation: m.observation, instance: m.instance }))).toEqual(
      [{ observation: OWN, instance: 'cluster-a' }],
    );
    // What B1's CLI was handed, and what B's dashboard says it was handed.
    const handed = b.fixture(B1)?.systemPrompt ?? '';
    const page = await b.get<ApiSession>(`/api/v1/sessions/${B1}`);
    for (const fact of SHARED) {
      expect(handed).toContain(fact.text);
      expect(page.system_prompt).toContain(fact.text);
    }
    expect(handed).not.toContain(OWN);
    expect(page.system_prompt).not.toContain(OWN);
  });

  it('(d) refuses a shared service’s restart on B after A used the limit', async () => {
    const { a, b } = members();
    const [A1, B1] = [session('A1'), session('B1')];
    // The guard's answers, with what it said (nothing when it lets the command run).
    const answers = (m: FleetMember, id: number) => m.fixture(id)?.hooks ?? [];
    expect(answers(a, A1)).toEqual([
      { command: 'docker restart shared-db', exitCode: 0, stderr: '' },
      { command: 'docker restart web', exitCode: 0, stderr: '' },
    ]);
    // shared-db counts across the fleet; web per instance, so B's first restart of it passes.
    expect(answers(b, B1)).toEqual([
      {
        command: 'docker restart shared-db',
        exitCode: 2,
        stderr: expect.stringContaining('shared-db is in restart cooldown (1 of 1 allowed'),
      },
      { command: 'docker restart web', exitCode: 0, stderr: '' },
    ]);
    const refusal = answers(b, B1)[0]!.stderr;
    expect(refusal).toContain('across the fleet');
    expect(refusal).toContain('instance cluster-a (1)');

    const onB = await b.get<ApiCooldowns>('/api/v1/cooldowns');
    expect(onB.services).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ service: 'shared-db', action: 'restart', count: 1, limit: 1 }),
        expect.objectContaining({ service: 'web', action: 'restart', count: 1, limit: 1 }),
      ]),
    );
    expect(onB.services.find((s) => s.service === 'shared-db')?.in_cooldown).toBe(true);
    expect(onB.blocked).toEqual([
      expect.objectContaining({ service: 'shared-db', session_id: B1 }),
    ]);
    expect(onB.recent_actions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ service: 'shared-db', session_id: A1, instance: 'cluster-a' }),
      ]),
    );
    expect(
      onB.recent_actions.filter((r) => r.service === 'shared-db').map((r) => r.instance),
    ).toEqual(['cluster-a']);
    // A counts its own web restart only.
    const onA = await a.get<ApiCooldowns>('/api/v1/cooldowns');
    expect(onA.services.find((s) => s.service === 'web')).toMatchObject({ count: 1 });
  });

  it('(f) lists the other instance’s sessions and events with an instance filter', async () => {
    const { b } = members();
    const [A1, A2, B1] = [session('A1'), session('A2'), session('B1')];
    const listed = async (query: string) =>
      (await b.get<{ sessions: ApiSession[] }>(`/api/v1/sessions?${query}`)).sessions.map(
        (s) => s.id,
      );
    expect((await listed('instance=cluster-a')).sort()).toEqual([A1, A2].sort());
    expect(await listed('instance=cluster-b')).toEqual([B1]);

    const { events } = await b.get<{ events: { message: string; instance: string }[] }>(
      '/api/v1/events?instance=cluster-a&limit=100',
    );
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.instance))).toEqual(new Set(['cluster-a']));
    const messages = events.map((e) => e.message);
    expect(messages).toEqual(expect.arrayContaining(['A1 checked web', 'A2 checked web']));
    expect(messages).not.toContain('B1 checked web');

    // The dashboard's pages, as a browser gets them.
    const html = async (path: string) => {
      const res = await b.request(path);
      expect(res.status).toBe(200);
      return res.text();
    };
    const sessionsPage = await html('/sessions?instance=cluster-a');
    // A run's row links its session, and so does the list of the run's sessions under it.
    const linked = new Set(
      [...sessionsPage.matchAll(/<a href="\/sessions\/(\d+)">#\1<\/a>/g)].map((m) => Number(m[1])),
    );
    expect([...linked].sort()).toEqual([A1, A2].sort());
    const eventsPage = await html('/events?instance=cluster-a');
    expect(eventsPage).toContain('A1 checked web');
    expect(eventsPage).not.toContain('B1 checked web');
  });

  it('(e) after kill -9 of A, B keeps working and marks A’s running session interrupted', async () => {
    const { a, b } = members();
    const holding = join(scratch, 'a3');
    ids.A3 = await sessionOf(a, await startRun(a, [`arrive ${holding}`, 'hold']));
    await waitFor('A3 to run its CLI', () => a.fixture(ids.A3!));
    groups.push(a.fixture(ids.A3)!.pid);
    await waitFor('A3 to hold', async () => {
      const s = await b.get<ApiSession>(`/api/v1/sessions/${ids.A3}`);
      return s.status === 'running' && s.instance === 'cluster-a';
    });

    a.kill('SIGKILL');
    expect(await a.closed).toBe('SIGKILL');

    // B serves and runs its own sessions as before.
    ids.B2 = await sessionOf(b, await startRun(b, ['say [EVENT:info:web] B2 still serving']));
    expect(await sessionEnded(b, ids.B2)).toMatchObject({
      status: 'completed',
      instance: 'cluster-b',
    });
    // A's session is marked by B's lease sweep once A's heartbeats have stopped for 6 s.
    const ended = await sessionEnded(b, ids.A3, 25_000);
    expect(ended).toMatchObject({ status: 'interrupted', instance: 'cluster-a' });
    expect(ended.error).toContain('interrupted: instance cluster-a stopped sending heartbeats');
    expect(
      logLines(b.log()).some(
        (l) =>
          l.msg === 'session interrupted: its instance stopped sending heartbeats' &&
          l.session === ids.A3,
      ),
    ).toBe(true);
    // Nothing of B's was touched.
    for (const name of ['B1', 'B2']) {
      expect(await b.get<ApiSession>(`/api/v1/sessions/${session(name)}`)).toMatchObject({
        status: 'completed',
      });
    }
  }, 45_000);
});
