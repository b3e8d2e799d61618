/**
 * `kill -9` of a real `serve` while the CLI (the fixture) waits on a tool: the next `serve` marks
 * the session `interrupted` and ends what is left of the CLI's process group before it runs
 * anything, so no CLI is left running beside a new one.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterEach, describe, expect, it } from 'vitest';

import { openStores } from '../../src/db/index.js';
import { findExecutable } from '../../src/process/parent-death.js';
import { canInspectGroups, groupMembers } from '../../src/runner/process-group.js';
import { alive, FAKE_CLAUDE, gone } from '../helpers/runner.js';
import { logLines } from '../helpers/log-lines.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
const PATH = process.env.PATH ?? '/usr/bin:/bin';
const HAS_SETPRIV = process.platform === 'linux' && findExecutable('setpriv', PATH, '/') !== null;
const exec = promisify(execFile);

const procs: ChildProcess[] = [];
const groups: number[] = [];
let dataDir: string | undefined;
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  for (const g of groups.splice(0)) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

async function waitFor<T>(what: string, fn: () => T | undefined | null | false, ms = 90_000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const v = fn();
    if (v) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

function serve(env: Record<string, string>) {
  const p = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  procs.push(p);
  const out = { log: '', closed: new Promise<number | null>((r) => p.on('close', r)), p };
  p.stderr!.on('data', (d: Buffer) => (out.log += d.toString()));
  return out;
}

describe.skipIf(!canInspectGroups())('kill -9 of serve', () => {
  it('leaves no CLI behind after the restart, and the session reads interrupted', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-kill9-'));
    // The fixture's `hang` scenario: says something, starts a tool (`sleep`) in its group, waits.
    const prompt = join(dataDir, 'hang.md');
    writeFileSync(prompt, 'hang');
    const env = {
      PATH,
      HOME: dataDir,
      WATCHKEEPER_DATA_DIR: dataDir,
      WATCHKEEPER_CLAUDE_BIN: FAKE_CLAUDE,
      WATCHKEEPER_TIER1_PROMPT: prompt,
      WATCHKEEPER_PORT: '0',
      WATCHKEEPER_KILL_GRACE: '1s',
      WATCHKEEPER_SESSION_TIMEOUT: '10m',
    };

    // Every second, so the first run starts at once; later ticks are skipped while it runs.
    const first = serve({ ...env, WATCHKEEPER_SCHEDULE: '* * * * * *' });
    const fixture = join(dataDir, 'fake-claude');
    const toolPid = Number(
      await waitFor('the fixture tool', () =>
        existsSync(join(fixture, '1.child'))
          ? readFileSync(join(fixture, '1.child'), 'utf8')
          : null,
      ),
    );
    const cliPid = (JSON.parse(readFileSync(join(fixture, '1.json'), 'utf8')) as { pid: number })
      .pid;
    groups.push(cliPid);
    {
      const stores = openStores(join(dataDir, 'watchkeeper.db'));
      const row = stores.db.prepare('SELECT status, pgid FROM sessions WHERE id = 1').get();
      stores.close();
      expect(row).toEqual({ status: 'running', pgid: cliPid });
    }
    expect(groupMembers(cliPid)).toEqual(expect.arrayContaining([cliPid, toolPid]));

    first.p.kill('SIGKILL');
    await first.closed;
    // The kernel's parent-death signal ended the CLI itself (test/runner/parent-death.test.ts
    // says when it cannot); its tool lives on in the group.
    if (HAS_SETPRIV) expect(await gone(cliPid)).toBe(true);
    expect(alive(toolPid)).toBe(true);

    const second = serve({ ...env, WATCHKEEPER_SCHEDULE: 'off' });
    await waitFor('the second serve', () => second.log.includes('watchkeeper serving'));
    expect(await gone(cliPid)).toBe(true);
    expect(await gone(toolPid)).toBe(true);
    expect(groupMembers(cliPid)).toEqual([]);
    const interrupted = logLines(second.log).find((l) => l.msg.startsWith('session interrupted'));
    expect(interrupted).toMatchObject({ session: 1, pgid: expect.any(Number), leftover: 'ended' });

    const listed = await exec(process.execPath, [BIN, 'sessions', 'list'], { env });
    expect(listed.stdout).toMatch(/^1 .* interrupted +scheduled /m);
    second.p.kill('SIGTERM');
    expect(await second.closed).toBe(0);

    const stores = openStores(join(dataDir, 'watchkeeper.db'));
    try {
      expect(stores.sessions.list()).toMatchObject([
        {
          id: 1,
          status: 'interrupted',
          endedAt: expect.any(Number),
          error: expect.stringContaining(
            'interrupted: watchkeeper stopped unexpectedly while this session was running',
          ),
        },
      ]);
    } finally {
      stores.close();
    }
  });
});
