/**
 * `serve` as a Claude Ops user starts it (a real process; the fixture CLI stands in for Claude):
 * their state folder and its old database found, the first run at start-up, the CLI's transcripts
 * kept in the data folder (and pruned with the sessions), and what stops start-up said in one line.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterEach, describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { cliIn } from '../helpers/cli.js';
import { fakeClock } from '../helpers/clock.js';
import { FAKE_CLAUDE } from '../helpers/runner.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
const exec = promisify(execFile);
const dirs: string[] = [];
const procs: ChildProcess[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'watchkeeper-claudeops-'));
  dirs.push(d);
  return d;
}

async function waitFor<T>(fn: () => T | undefined | null | false, ms = 90_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const v = fn();
    if (v) return v;
  }
  throw new Error('timed out waiting');
}

/** The environment of the image (its default data folder) under a Claude Ops .env. */
function claudeOpsEnv(state: string, extra: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: state,
    WATCHKEEPER_DEFAULT_DATA_DIR: tempDir(),
    CLAUDEOPS_STATE_DIR: state,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    WATCHKEEPER_CLAUDE_BIN: FAKE_CLAUDE,
    WATCHKEEPER_PORT: '0',
    WATCHKEEPER_EMBEDDINGS: 'off',
    ...extra,
  };
}

describe('serve under a Claude Ops environment', () => {
  it('uses the state folder, offers its database, runs at once, and keeps the CLI folder there', async () => {
    const state = tempDir();
    writeFileSync(join(state, 'claudeops.db'), '');
    const prompt = join(state, 'observe.md');
    writeFileSync(prompt, 'ok');
    const env = claudeOpsEnv(state, { CLAUDEOPS_INTERVAL: '3600', CLAUDEOPS_PROMPT: prompt });
    const serve = spawn(process.execPath, [BIN, 'serve'], { env });
    procs.push(serve);
    let log = '';
    serve.stderr.on('data', (d: Buffer) => (log += d.toString()));
    await waitFor(() => log.includes('watchkeeper serving'));
    expect(log).toContain(
      `\`watchkeeper import-claudeops ${join(state, 'claudeops.db')}\` imports its history`,
    );
    // The first run starts with serve, not at the top of the next hour.
    const record = join(state, 'fake-claude', '1.json');
    await waitFor(() => existsSync(record) && readFileSync(record, 'utf8'));
    const { env: childEnv } = JSON.parse(readFileSync(record, 'utf8')) as {
      env: Record<string, string>;
    };
    expect(childEnv.CLAUDE_CONFIG_DIR).toBe(join(state, 'claude'));
    expect(existsSync(join(state, 'watchkeeper.db'))).toBe(true);
    serve.kill('SIGTERM');
    expect(await new Promise((r) => serve.on('close', r))).toBe(0);
  });

  it('a missing prompt file stops start-up (exit 2) naming the setting and the path', async () => {
    const state = tempDir();
    const env = claudeOpsEnv(state, { CLAUDEOPS_TIER2_PROMPT: 'prompts/tier2-missing.md' });
    const r = exec(process.execPath, [BIN, 'serve'], { env });
    const err = (await r.catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(err.code).toBe(2);
    const lines = err.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `CLAUDEOPS_TIER2_PROMPT: the tier 2 prompt file ${join(process.cwd(), 'prompts/tier2-missing.md')} does not exist`,
    );
  });

  it('listening on every interface without a credential is refused, naming the Claude Ops key', async () => {
    const env = claudeOpsEnv(tempDir(), { WATCHKEEPER_HOST: '0.0.0.0' });
    const err = (await exec(process.execPath, [BIN, 'serve'], { env }).catch(
      (e: unknown) => e,
    )) as {
      code: number;
      stderr: string;
    };
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(
      /refusing to serve the dashboard on 0\.0\.0\.0 without a credential: set WATCHKEEPER_AUTH_TOKEN \(16\+ characters; a Claude Ops CLAUDEOPS_CHAT_API_KEY counts as it\)/,
    );
  });
});

describe("retention of the CLI's transcripts", () => {
  it('prunes those in the data folder older than the cutoff, keeps recent ones', async () => {
    const now = Date.UTC(2026, 5, 1);
    const cli = cliIn(tempDir(), fakeClock(now));
    const project = join(cli.dataDir, 'claude', 'projects', '-data-workspace');
    mkdirSync(join(project, 'subagents'), { recursive: true });
    const file = (name: string, daysAgo: number) => {
      const path = join(project, name);
      writeFileSync(path, '{}\n');
      const at = new Date(now - daysAgo * DAY_MS);
      utimesSync(path, at, at);
      return path;
    };
    const old = file('old.jsonl', 40);
    const oldSub = file('subagents/agent-1.jsonl', 40);
    const recent = file('recent.jsonl', 2);
    const r = await cli.run(['prune', '--older-than', '30d']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2 log files');
    expect([old, oldSub, recent].map((p) => existsSync(p))).toEqual([false, false, true]);
  });
});
