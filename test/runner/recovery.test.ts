/** Start-up recovery against real process groups (Linux /proc). */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { silentLogger } from '../../src/log.js';
import { acquireRunnerLock } from '../../src/runner/lock.js';
import { canInspectGroups, groupMembers } from '../../src/runner/process-group.js';
import { recoverInterruptedSessions } from '../../src/runner/recovery.js';
import { testApp, type TestApp } from '../helpers/db.js';
import { alive, gone } from '../helpers/runner.js';
import { waitFor } from '../helpers/wait.js';

let app: TestApp;
const groups: number[] = [];
beforeEach(() => {
  app = testApp();
});
afterEach(() => {
  for (const g of groups.splice(0)) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  app.close();
});

/**
 * A detached shell leading its own group with a `sleep` child in it, like a CLI waiting on a
 * tool; `env` is its environment (the marker, or not).
 */
async function group(env: Record<string, string>, script = 'sleep 300 & wait'): Promise<number> {
  const leader: ChildProcess = spawn('/bin/sh', ['-c', script], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  });
  leader.unref();
  const pgid = leader.pid!;
  groups.push(pgid);
  await waitFor('the leader and its child in the group', () => groupMembers(pgid).length >= 2);
  expect(groupMembers(pgid)).toHaveLength(2);
  return pgid;
}

const marker = (sessionId: number) => ({
  WATCHKEEPER_SESSION_ID: String(sessionId),
  WATCHKEEPER_DATA_DIR: app.dataDir,
});

async function running(pgid: number | null): Promise<number> {
  const id = app.stores.sessions.start({ trigger: 'scheduled', tier: 1, startedAt: 1000 });
  if (pgid !== null) await app.stores.sessions.setPgid(id, pgid);
  return id;
}

const recover = (killGraceMs = 2000) =>
  recoverInterruptedSessions({
    sessions: app.stores.sessions,
    dataDir: app.dataDir,
    killGraceMs,
    now: () => app.clock.now(),
    log: silentLogger,
  });

describe.skipIf(!canInspectGroups())('start-up recovery', () => {
  it("marks a running session interrupted and ends its process group, the tools' too", async () => {
    const id = await running(null);
    const pgid = await group(marker(id));
    await app.stores.sessions.setPgid(id, pgid);
    const members = groupMembers(pgid);
    const done = app.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: 500 });
    app.stores.sessions.finish(done, { status: 'completed', endedAt: 600 });

    expect(await recover()).toEqual([{ sessionId: id, pgid, leftover: 'ended' }]);

    for (const pid of members) expect(await gone(pid)).toBe(true);
    expect(app.stores.sessions.get(id)).toMatchObject({
      status: 'interrupted',
      endedAt: app.clock.now(),
      error:
        'interrupted: watchkeeper stopped unexpectedly while this session was running; ' +
        `its leftover processes (process group ${pgid}) were ended at start-up`,
    });
    expect(app.stores.sessions.get(done)).toMatchObject({ status: 'completed', endedAt: 600 });
    expect(await recover()).toEqual([]);
  });

  it('kills a group that ignores SIGTERM once the grace period is over', async () => {
    const id = await running(null);
    const pgid = await group(marker(id), 'trap "" TERM; sleep 300 & wait');
    await app.stores.sessions.setPgid(id, pgid);
    expect(await recover(300)).toEqual([{ sessionId: id, pgid, leftover: 'ended' }]);
    expect(groupMembers(pgid)).toEqual([]);
  });

  it('leaves alone a group that does not carry the session marker (a reused id)', async () => {
    const other = await group({ WATCHKEEPER_SESSION_ID: '99', WATCHKEEPER_DATA_DIR: app.dataDir });
    const id = await running(other);
    expect(await recover()).toEqual([{ sessionId: id, pgid: other, leftover: 'not-ours' }]);
    for (const pid of groupMembers(other)) expect(alive(pid)).toBe(true);
    expect(groupMembers(other)).toHaveLength(2);
    expect(app.stores.sessions.get(id)).toMatchObject({
      status: 'interrupted',
      error: expect.stringContaining(
        `process group ${other} now belongs to other processes and was left alone`,
      ),
    });
  });

  it('marks sessions whose CLI never started or is already gone', async () => {
    const never = await running(null);
    const leader = spawn('/bin/true', [], { detached: true, stdio: 'ignore' });
    await new Promise((r) => leader.on('exit', r));
    const exited = await running(leader.pid!);
    expect(await recover()).toEqual([
      { sessionId: never, pgid: null, leftover: 'none' },
      { sessionId: exited, pgid: leader.pid, leftover: 'none' },
    ]);
    for (const id of [never, exited]) {
      expect(app.stores.sessions.get(id)).toMatchObject({
        status: 'interrupted',
        error: 'interrupted: watchkeeper stopped unexpectedly while this session was running',
      });
    }
  });
});

describe('runner lock', () => {
  it('takes over a lock that names this very process (a restarted container reuses pids)', () => {
    writeFileSync(
      join(app.dataDir, 'runner.lock'),
      JSON.stringify({ pid: process.pid, kind: 'serve', since: 1 }),
    );
    const lock = acquireRunnerLock(app.dataDir, 'serve', 2);
    lock.release();
  });
});
