import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { cooldownRow } from '../helpers/db.js';

import type { SessionRequest } from '../../src/runner/session-runner.js';
import { gone, runnerHarness, type RunnerHarness } from '../helpers/runner.js';

let h: RunnerHarness;
afterEach(() => h?.close());

const request = (prompt: string, over: Partial<SessionRequest> = {}): SessionRequest => ({
  trigger: 'manual',
  tier: 1,
  prompt,
  parentSessionId: null,
  handoff: null,
  alert: null,
  ...over,
});
const recorded = (sessionId: number) =>
  JSON.parse(readFileSync(join(h.dataDir, 'fake-claude', `${sessionId}.json`), 'utf8')) as {
    argv: string[];
    env: Record<string, string>;
    pid: number;
  };
const childPid = (sessionId: number) =>
  Number(readFileSync(join(h.dataDir, 'fake-claude', `${sessionId}.child`), 'utf8'));

describe('session runner with a fixture CLI', () => {
  it('fills the session row from the result line and ingests markers', async () => {
    h = runnerHarness();
    const out = await h.runSession(request('ok'));
    expect(out.status).toBe('completed');
    const s = h.stores.sessions.get(out.sessionId)!;
    expect(s).toMatchObject({
      exitCode: 0,
      resultSubtype: 'success',
      isError: false,
      costUsd: 0.001,
      numTurns: 1,
      model: 'fake-model',
      response: 'all good',
    });
    expect(h.stores.events.list({ source: 'agent' })).toMatchObject([
      { service: 'web', message: 'all good' },
    ]);
    expect(h.stores.memories.count()).toBe(1);
  });

  it('keeps what was said before a crash and records the exit code and stderr', async () => {
    h = runnerHarness();
    const out = await h.runSession(request('crash'));
    const s = h.stores.sessions.get(out.sessionId)!;
    expect(s).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(s.error).toContain('fatal: the fake CLI crashed on purpose');
    expect(s.error).toContain('no result line');
    expect(h.stores.events.list({ source: 'agent' })).toMatchObject([
      { level: 'critical', service: 'nas' },
    ]);
    expect(
      readFileSync(join(h.dataDir, 'sessions', `${out.sessionId}.stderr.log`), 'utf8'),
    ).toContain('crashed on purpose');
  });

  it('times out a hung CLI within the timeout plus grace, leaving no process of its group', async () => {
    h = runnerHarness({ WATCHKEEPER_SESSION_TIMEOUT: '1500ms', WATCHKEEPER_KILL_GRACE: '500ms' });
    const started = Date.now();
    const out = await h.runSession(request('hang'));
    expect(Date.now() - started).toBeLessThan(1500 + 500 + 3000);
    expect(h.stores.sessions.get(out.sessionId)).toMatchObject({
      status: 'timed_out',
      error: 'timed out after 2 s',
    });
    expect(h.stores.events.list({ source: 'agent' })).toHaveLength(1);
    expect(await gone(recorded(out.sessionId).pid)).toBe(true);
    expect(await gone(childPid(out.sessionId))).toBe(true);
  });

  it('kills a CLI that ignores SIGTERM after the grace period', async () => {
    h = runnerHarness({ WATCHKEEPER_SESSION_TIMEOUT: '1s', WATCHKEEPER_KILL_GRACE: '500ms' });
    const out = await h.runSession(request('hang-ignore-term'));
    expect(out.status).toBe('timed_out');
    expect(h.stores.sessions.get(out.sessionId)!.exitCode).toBeNull();
    expect(await gone(recorded(out.sessionId).pid)).toBe(true);
  });

  it('completes when a grandchild keeps stdout open after the CLI exits, and ends the grandchild', async () => {
    h = runnerHarness({ WATCHKEEPER_STDOUT_GRACE: '500ms' });
    const started = Date.now();
    const out = await h.runSession(request('grandchild'));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out.status).toBe('completed');
    expect(await gone(childPid(out.sessionId))).toBe(true);
  });

  it('stops a running session when asked', async () => {
    h = runnerHarness();
    const abort = new AbortController();
    const running = h.runSession(request('hang'), abort.signal);
    await new Promise((r) => setTimeout(r, 500));
    abort.abort();
    const out = await running;
    expect(h.stores.sessions.get(out.sessionId)).toMatchObject({
      status: 'stopped',
      error: 'stopped by the operator',
    });
  });

  it('writes an event row while the session is still running', async () => {
    h = runnerHarness();
    const running = h.runSession(request('wait-for-file'));
    let seen = false;
    for (let i = 0; i < 200 && !seen; i += 1) {
      await new Promise((r) => setTimeout(r, 25));
      seen = h.stores.events.list({ service: 'queue' }).length === 1;
    }
    expect(seen).toBe(true);
    expect(h.stores.sessions.list()[0]!.status).toBe('running');
    writeFileSync(join(h.dataDir, 'fake-claude', 'continue'), '');
    expect((await running).status).toBe('completed');
  });

  it('keeps the session log byte-identical to what the CLI printed, huge lines included', async () => {
    h = runnerHarness({ WATCHKEEPER_MAX_LINE_BYTES: String(1024 * 1024) });
    const transcript = join(h.dataDir, 'input.ndjson');
    const bytes = Buffer.concat([
      Buffer.from('{"type":"system","subtype":"init","session_id":"s"}\r\n'),
      Buffer.from('not json \xff\xfe at all\n', 'latin1'),
      Buffer.from(`{"type":"user","message":{"content":"${'y'.repeat(2 * 1024 * 1024)}"}}\n`),
      Buffer.from(
        '{"type":"assistant","message":{"content":[{"type":"text","text":"[EVENT:info:x] ok"}]},"parent_tool_use_id":null}\n',
      ),
      Buffer.from('{"type":"result","subtype":"success","is_error":false,"result":"ok"}'),
    ]);
    writeFileSync(transcript, bytes);
    const out = await h.runSession(request(`replay:${transcript}`));
    expect(out.status).toBe('completed');
    expect(readFileSync(join(h.dataDir, 'sessions', `${out.sessionId}.ndjson`)).equals(bytes)).toBe(
      true,
    );
    expect(h.stores.sessions.get(out.sessionId)!.streamStats).toMatchObject({
      oversizedLines: 1,
      nonJsonLines: 1,
    });
  });

  it('hands the CLI an allow-listed environment and never the dashboard secrets', async () => {
    h = runnerHarness(
      { WATCHKEEPER_CHILD_ENV: 'SSH_AUTH_SOCK' },
      {
        parentEnv: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: '/home/ops',
          ANTHROPIC_API_KEY: 'sk-ant-test',
          ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
          SSH_AUTH_SOCK: '/run/ssh.sock',
          WATCHKEEPER_AUTH_TOKEN: 'dashboard-secret',
          AWS_SECRET_ACCESS_KEY: 'aws-secret',
          CLAUDECODE: '1',
        },
      },
    );
    const out = await h.runSession(request('ok'));
    const { env } = recorded(out.sessionId);
    expect(env).toMatchObject({
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      SSH_AUTH_SOCK: '/run/ssh.sock',
      HOME: '/home/ops',
      WATCHKEEPER_SESSION_ID: String(out.sessionId),
    });
    expect(env).not.toHaveProperty('WATCHKEEPER_AUTH_TOKEN');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    expect(env).not.toHaveProperty('CLAUDECODE');
  });

  it('passes the memory block, the cooldown state and the hook in its arguments', async () => {
    h = runnerHarness({ WATCHKEEPER_MAX_TURNS: '12' });
    h.keeper.add({ service: 'jellyfin', category: 'timing', observation: 'Takes 60s to start' });
    h.stores.cooldowns.insert(cooldownRow());
    const out = await h.runSession(request('--looks-like-a-flag'));
    const { argv } = recorded(out.sessionId);
    const append = argv[argv.indexOf('--append-system-prompt') + 1]!;
    expect(append).toContain('## Operational Memory (1 of 1 memories');
    expect(append).toContain('- [timing] Takes 60s to start (confidence: 0.7)');
    expect(append).toContain('- jellyfin: restart 1/2 in 4h');
    const settings = JSON.parse(argv[argv.indexOf('--settings') + 1]!);
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toMatch(
      /watchkeeper\.js' hook pre-tool-use$/,
    );
    expect(argv.slice(-2)).toEqual(['--', '--looks-like-a-flag']);
    expect(argv[argv.indexOf('--max-turns') + 1]).toBe('12');
    expect(argv[argv.indexOf('--model') + 1]).toBe('haiku');
  });

  it('records a failed session with a clear error when the CLI cannot be started', async () => {
    h = runnerHarness({ WATCHKEEPER_CLAUDE_BIN: '/nonexistent/claude' });
    const out = await h.runSession(request('ok'));
    expect(out.status).toBe('failed');
    expect(h.stores.sessions.get(out.sessionId)!.error).toMatch(
      /cannot start the Claude CLI \(\/nonexistent\/claude\): .*ENOENT/,
    );
  });
});
