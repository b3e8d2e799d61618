import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { cooldownRow } from '../helpers/db.js';

import { MAX_COOLDOWN_BLOCK_CHARS } from '../../src/runner/cooldown-policy.js';
import { SESSION_SHUTDOWN_ERROR } from '../../src/db/index.js';
import type { SessionRequest } from '../../src/runner/session-runner.js';
import { SHUTDOWN_STOP } from '../../src/runner/session/verdict.js';
import { gone, runnerHarness, type RunnerHarness } from '../helpers/runner.js';

let h: RunnerHarness;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const request = (prompt: string, over: Partial<SessionRequest> = {}): SessionRequest => ({
  trigger: 'manual',
  tier: 1,
  prompt,
  parentSessionId: null,
  handoff: null,
  alert: null,
  ...over,
});
interface RecordedFile {
  path: string;
  content: string;
  mode: number;
}
const recorded = (sessionId: number) =>
  JSON.parse(readFileSync(join(h.dataDir, 'fake-claude', `${sessionId}.json`), 'utf8')) as {
    argv: string[];
    prompt: string;
    files: Record<string, RecordedFile>;
    env: Record<string, string>;
    pid: number;
  };
/** The appended system prompt as the CLI read it from its file while it ran. */
const appended = (sessionId: number) =>
  recorded(sessionId).files['--append-system-prompt-file']!.content;
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
    expect(await h.stores.memories.count()).toBe(1);
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
    // Ended by the timeout (its status and message), not by the test's own deadline.
    const out = await h.runSession(request('hang'));
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
    // Completed: it neither waited for the grandchild's stdout nor ran into the session timeout.
    const out = await h.runSession(request('grandchild'));
    expect(out.status).toBe('completed');
    expect(await gone(childPid(out.sessionId))).toBe(true);
  });

  it('stops a running session when asked', async () => {
    h = runnerHarness();
    const abort = new AbortController();
    const running = h.runSession(request('hang'), abort.signal);
    // Stopped once it runs: the CLI has said its first line.
    await expect.poll(() => h.stores.events.list({ service: 'dns' }).length).toBe(1);
    abort.abort();
    const out = await running;
    expect(h.stores.sessions.get(out.sessionId)).toMatchObject({
      status: 'stopped',
      error: 'stopped by the operator',
    });
  });

  it("records a stop at watchkeeper's shutdown as a shutdown, not as the operator's", async () => {
    h = runnerHarness();
    const abort = new AbortController();
    const running = h.runSession(request('hang'), abort.signal);
    await expect.poll(() => h.stores.events.list({ service: 'dns' }).length).toBe(1);
    abort.abort(SHUTDOWN_STOP);
    const out = await running;
    expect(h.stores.sessions.get(out.sessionId)).toMatchObject({
      status: 'stopped',
      error: SESSION_SHUTDOWN_ERROR,
    });
  });

  it('writes an event row while the session is still running', async () => {
    h = runnerHarness();
    const running = h.runSession(request('wait-for-file'));
    await expect.poll(() => h.stores.events.list({ service: 'queue' }).length).toBe(1);
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
    // Beside it, where each chunk starts and when it came: the activity log's time per line.
    const times = readFileSync(join(h.dataDir, 'sessions', `${out.sessionId}.times`), 'utf8');
    expect(times).toMatch(/^0 \d{13}\n(\d+ \d{13}\n)*$/);
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

  it('hands over the memory block, the cooldown state and the hook in private files, the prompt on stdin', async () => {
    h = runnerHarness({ WATCHKEEPER_MAX_TURNS: '12' });
    await h.keeper.add({
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to start',
    });
    h.stores.cooldowns.insert(cooldownRow());
    const out = await h.runSession(request('--looks-like-a-flag'));
    const { argv, prompt, files } = recorded(out.sessionId);
    const append = files['--append-system-prompt-file']!;
    expect(append.content).toContain('## Operational Memory (1 of 1 memories');
    expect(append.content).toContain('- [timing] Takes 60s to start (confidence: 0.7)');
    expect(append.content).toContain('- jellyfin: restart 1/2 in 4h');
    const settings = JSON.parse(files['--settings']!.content);
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toMatch(
      /watchkeeper\.js' hook pre-tool-use$/,
    );
    // Readable by this user only, and gone once the session has ended.
    expect(append.mode).toBe(0o600);
    expect(files['--settings']!.mode).toBe(0o600);
    expect(existsSync(append.path)).toBe(false);
    expect(existsSync(files['--settings']!.path)).toBe(false);
    // The prompt never becomes an argument, so it cannot be taken for an option either.
    expect(prompt).toBe('--looks-like-a-flag');
    expect(argv).not.toContain('--looks-like-a-flag');
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

  it('ends a session whose CLI argument is over 128 KiB (E2BIG) as failed at once, and the next run works', async () => {
    // A 1 s timeout: had the process started, the session would end timed_out, not failed.
    // The harness's session timeout: a start that hung would end as timed_out, not failed, and
    // the next run has the time a busy machine needs.
    h = runnerHarness({
      WATCHKEEPER_TIER1_ALLOWED_TOOLS: `Bash,${'x'.repeat(200 * 1024)}`,
    });
    const out = await h.runSession(request('ok'));
    expect(out.status).toBe('failed');
    const row = h.stores.sessions.get(out.sessionId)!;
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(
      /^cannot start the Claude CLI \(.*\): .*over the system limit \(E2BIG\)$/,
    );
    expect(row.endedAt).not.toBeNull();
    const next = await h.runSession(request('ok', { tier: 2 }));
    expect(next.status).toBe('completed');
  });

  it('ends a session whose CLI argument holds a NUL as failed at once, and the next run works', async () => {
    h = runnerHarness({
      WATCHKEEPER_TIER1_MODEL: 'haiku\u0000',
    });
    const out = await h.runSession(request('ok'));
    expect(h.stores.sessions.get(out.sessionId)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/cannot start the Claude CLI .*an argument contains a NUL/),
    });
    expect((await h.runSession(request('ok', { tier: 2 }))).status).toBe('completed');
  });

  it('sends a huge prompt holding a NUL on stdin, byte for byte', async () => {
    h = runnerHarness();
    const prompt = `ok:${'p'.repeat(300 * 1024)}\u0000end`;
    const out = await h.runSession(request(prompt));
    expect(out.status).toBe('completed');
    expect(recorded(out.sessionId).prompt).toBe(prompt);
  });

  it('runs with a memory stored with a NUL and a memory block far over 128 KiB', async () => {
    h = runnerHarness({ WATCHKEEPER_MEMORY_BUDGET: '200000' });
    const now = Date.now();
    // Written straight to the store, as rows from before control characters were refused.
    const memory = (observation: string) =>
      h.stores.memories.create({
        service: 'nas',
        category: 'dependency',
        observation,
        confidence: 0.9,
        pinned: false,
        sessionId: null,
        tier: 0,
        at: now,
        nextDecayAt: now + 86_400_000,
      });
    memory('Mounts \u0000 the backup share last');
    for (let i = 0; i < 90; i += 1) memory(`Fact ${i}: ${'long detail '.repeat(160)}`);
    const out = await h.runSession(request('ok'));
    expect(out.status).toBe('completed');
    const block = appended(out.sessionId);
    expect(block.length).toBeGreaterThan(128 * 1024);
    expect(block).toContain('Mounts \u0000 the backup share last');
    expect((await h.runSession(request('ok'))).status).toBe('completed');
  });

  it('refuses a tier prompt file with a control character, naming the file; CRLF line ends are fine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-prompts-'));
    dirs.push(dir);
    const file = join(dir, 'tier1.md');
    h = runnerHarness({ WATCHKEEPER_TIER1_PROMPT: file });
    writeFileSync(file, 'ok\u001b[2J');
    const bad = await h.runSession(request('', { prompt: null }));
    expect(h.stores.sessions.get(bad.sessionId)).toMatchObject({
      status: 'failed',
      error: `cannot prepare the session: prompt file ${file} (WATCHKEEPER_TIER1_PROMPT): contains the control character U+001B at position 2`,
    });
    writeFileSync(file, 'ok\r\n');
    const good = await h.runSession(request('', { prompt: null }));
    expect(good.status).toBe('completed');
    expect(recorded(good.sessionId).prompt).toBe('ok\n');
  });

  it('ends the row as failed when something throws after it was created', async () => {
    let calls = 0;
    h = runnerHarness(
      {},
      {
        onSpawn: () => {
          calls += 1;
          if (calls === 1) throw new Error('the database is locked');
        },
      },
    );
    const out = await h.runSession(request('hang'));
    expect(h.stores.sessions.get(out.sessionId)).toMatchObject({
      status: 'failed',
      error: 'the session could not be run: the database is locked',
    });
    expect((await h.runSession(request('ok'))).status).toBe('completed');
  });

  it('counts a result line with subtype success but is_error true as a failure', async () => {
    h = runnerHarness();
    const out = await h.runSession(request('is-error'));
    expect(out.status).toBe('failed');
    expect(h.stores.sessions.get(out.sessionId)).toMatchObject({
      status: 'failed',
      exitCode: 0,
      resultSubtype: 'success',
      isError: true,
      error: 'the run went wrong after all',
    });
  });

  it('says which variable to set when the CLI fails to log in without a credential', async () => {
    h = runnerHarness();
    const out = await h.runSession(request('not-logged-in'));
    const error = h.stores.sessions.get(out.sessionId)!.error!;
    expect(error).toMatch(/^no model credential is configured: set ANTHROPIC_API_KEY /);
    expect(error).toContain('CLAUDE_CODE_OAUTH_TOKEN');
    expect(error).toContain('ANTHROPIC_AUTH_TOKEN');
    expect(error).toContain('(the Claude CLI said: Not logged in · Please run /login)');
  });

  it("keeps the CLI's own words when a credential is configured", async () => {
    h = runnerHarness(
      {},
      { parentEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', ANTHROPIC_API_KEY: 'sk-ant-x' } },
    );
    const out = await h.runSession(request('not-logged-in'));
    expect(h.stores.sessions.get(out.sessionId)!.error).toBe('Not logged in · Please run /login');
  });

  it('keeps the cooldown state within its budget, services in cooldown first, malformed names left out', async () => {
    h = runnerHarness();
    const name = (i: number) => `service-${String(i).padStart(3, '0')}-${'n'.repeat(30)}`;
    for (let i = 0; i < 300; i += 1) {
      // Every 50th service is at its limit (2 restarts in the window).
      const times = i % 50 === 49 ? 2 : 1;
      for (let k = 0; k < times; k += 1)
        h.stores.cooldowns.insert(cooldownRow({ service: name(i) }));
    }
    h.stores.cooldowns.insert(cooldownRow({ service: `bad name ${'x'.repeat(5000)}` }));
    const out = await h.runSession(request('ok'));
    const block = appended(out.sessionId);
    const section = block.slice(block.indexOf('## Cooldown state')).split('\n\n')[0]!;
    expect(section.length).toBeLessThanOrEqual(MAX_COOLDOWN_BLOCK_CHARS);
    const listed = section.split('\n').filter((l) => l.startsWith('- service-'));
    expect(listed.slice(0, 6).every((l) => l.includes('IN COOLDOWN'))).toBe(true);
    expect(section).toContain(
      `- ... ${301 - listed.length} more not shown (0 of them in cooldown)`,
    );
    expect(section).not.toContain('bad name');
  });
});
