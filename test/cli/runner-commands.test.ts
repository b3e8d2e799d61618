/** `serve`, `run`, `stop` and `hook pre-tool-use` as real processes (the fixture CLI stands in for Claude). */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterEach, describe, expect, it } from 'vitest';

import { cooldownRow } from '../helpers/db.js';

import { openStores } from '../../src/db/index.js';
import { FAKE_CLAUDE } from '../helpers/runner.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
const exec = promisify(execFile);
const dirs: string[] = [];
const procs: ChildProcess[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function envFor(extra: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-cmd-'));
  dirs.push(dataDir);
  return {
    dataDir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      WATCHKEEPER_DATA_DIR: dataDir,
      WATCHKEEPER_CLAUDE_BIN: FAKE_CLAUDE,
      WATCHKEEPER_KILL_GRACE: '500ms',
      // What these commands do with a session does not depend on meaning; without the model each
      // process starts in a fraction of the time.
      WATCHKEEPER_EMBEDDINGS: 'off',
      ...extra,
    },
  };
}

function hook(env: Record<string, string>, payload: unknown) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const p = spawn(process.execPath, [BIN, 'hook', 'pre-tool-use'], { env });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stderr }));
    p.stdin.end(JSON.stringify(payload));
  });
}

async function waitFor<T>(fn: () => T | undefined | null | false, ms = 90_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const v = fn();
    if (v) return v;
  }
  throw new Error('timed out waiting');
}

describe('runner commands', () => {
  it('run: one chain in the foreground, exit 0 when it completed and 1 when it failed', async () => {
    const { env, dataDir } = envFor();
    const ok = await exec(process.execPath, [BIN, 'run', '--prompt', 'ok'], { env });
    expect(ok.stdout).toBe('session 1: tier 1 completed\n');
    await expect(
      exec(process.execPath, [BIN, 'run', '--prompt', 'crash'], { env }),
    ).rejects.toMatchObject({ code: 1 });
    await expect(
      exec(process.execPath, [BIN, 'run', '--tier', '4'], { env }),
    ).rejects.toMatchObject({ code: 2 });
    expect(existsSync(join(dataDir, 'runner.lock'))).toBe(false);
  });

  it('run: a prompt over 128 KiB completes, and a CLI that cannot be spawned exits 1 with the reason', async () => {
    const { env, dataDir } = envFor();
    // Once an argument over exec's limit: the process left the row running and exited 0, silently.
    const promptFile = join(dataDir, 'tier1.md');
    writeFileSync(promptFile, `ok:${'p'.repeat(200 * 1024)}`);
    const big = await exec(process.execPath, [BIN, 'run'], {
      env: { ...env, WATCHKEEPER_TIER1_PROMPT: promptFile },
    });
    expect(big.stdout).toBe('session 1: tier 1 completed\n');
    const notExecutable = join(dataDir, 'claude-not-executable');
    writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    const failed = exec(process.execPath, [BIN, 'run', '--prompt', 'ok'], {
      env: { ...env, WATCHKEEPER_CLAUDE_BIN: notExecutable },
    });
    await expect(failed).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringMatching(
        /^session 2: tier 1 failed \(cannot start the Claude CLI \(.*\): permission denied.*EACCES\)\)\n$/,
      ),
    });
    const stores = openStores(join(dataDir, 'watchkeeper.db'));
    expect(stores.sessions.list().map((r) => r.status)).toEqual(['failed', 'completed']);
    stores.close();
  });

  it('run: a --prompt with a control character is refused (exit 2) and nothing runs', async () => {
    const { env, dataDir } = envFor();
    await expect(
      exec(process.execPath, [BIN, 'run', '--prompt', 'check \u001b[2Jnas'], { env }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        '--prompt: contains the control character U+001B at position 6',
      ),
    });
    expect(existsSync(join(dataDir, 'watchkeeper.db'))).toBe(false);
  });

  it('hook pre-tool-use: exit 2 with the reason for a restart in cooldown, 0 otherwise', async () => {
    const { env, dataDir } = envFor();
    const stores = openStores(join(dataDir, 'watchkeeper.db'));
    for (let i = 0; i < 2; i += 1) {
      stores.cooldowns.insert(cooldownRow());
    }
    stores.close();
    const call = (command: string) =>
      hook(env, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
    expect(await call('ssh host docker restart jellyfin')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('jellyfin is in restart cooldown'),
    });
    expect(await call('docker restart caddy')).toEqual({ code: 0, stderr: '' });
    expect(await call('uptime')).toEqual({ code: 0, stderr: '' });
    expect(await hook(env, 'not even json')).toEqual({ code: 0, stderr: '' });
  });

  it('hook pre-tool-use fails closed for a restart when the database cannot be read', async () => {
    const { env } = envFor({ WATCHKEEPER_DATA_DIR: '/proc/version/not-a-dir' });
    const r = await hook(env, {
      tool_name: 'Bash',
      tool_input: { command: 'docker restart jellyfin' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('could not check the cooldowns');
  });

  it('serve: takes the lock, stops the running session on `stop`, and exits cleanly on SIGTERM', async () => {
    const { env, dataDir } = envFor({ WATCHKEEPER_SCHEDULE: '0 0 1 1 *' });
    const serve = spawn(process.execPath, [BIN, 'serve'], { env });
    procs.push(serve);
    let log = '';
    serve.stderr.on('data', (d: Buffer) => (log += d.toString()));
    await waitFor(() => log.includes('watchkeeper serving'));
    expect(log).toContain('no ANTHROPIC_API_KEY');
    // A second runner on the same data folder is refused.
    await expect(exec(process.execPath, [BIN, 'run'], { env })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`another watchkeeper serve (pid ${serve.pid}) is running`),
    });
    const stopped = await exec(process.execPath, [BIN, 'stop'], { env });
    expect(stopped.stdout).toContain(`asked watchkeeper serve (pid ${serve.pid})`);
    await waitFor(() => log.includes('stop requested'));
    serve.kill('SIGTERM');
    const code = await new Promise((r) => serve.on('close', r));
    expect(code).toBe(0);
    expect(log).toContain('shutting down');
    expect(existsSync(join(dataDir, 'runner.lock'))).toBe(false);
    await expect(exec(process.execPath, [BIN, 'stop'], { env })).rejects.toMatchObject({ code: 1 });
  });
});
