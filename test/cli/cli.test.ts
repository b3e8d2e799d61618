import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterEach, describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { fakeClock } from '../helpers/clock.js';
import { cliIn } from '../helpers/cli.js';

const REAL = new URL('../fixtures/transcripts/real-cli-2.1.197.ndjson', import.meta.url);
const BIN = new URL('../../bin/watchkeeper.js', import.meta.url);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function fresh(clock = fakeClock()) {
  const cli = cliIn(undefined, clock);
  dirs.push(cli.dataDir);
  return cli;
}

describe('watchkeeper CLI', () => {
  it('ingests from stdin, then lists memories, events and sessions as stable JSON', async () => {
    const { run } = fresh();
    const ing = await run(['ingest', '-'], readFileSync(REAL, 'utf8'));
    expect(ing.code).toBe(0);
    expect(ing.stdout).toContain('events: 2  memories: 1 new, 0 reinforced');

    const memories = JSON.parse((await run(['memories', 'list', '--json'])).stdout);
    expect(memories).toEqual([
      {
        id: 1,
        service: 'jellyfin',
        category: 'timing',
        observation: 'Takes 60s to start after restart',
        confidence: 0.7,
        active: true,
        pinned: false,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
        last_reinforced_at: '2026-01-01T00:00:00.000Z',
        session_id: 1,
        tier: 1,
      },
    ]);
    const warnings = JSON.parse(
      (await run(['events', 'list', '--level', 'warning', '--json'])).stdout,
    );
    expect(warnings).toEqual([
      {
        id: 1,
        session_id: 1,
        source: 'agent',
        level: 'warning',
        service: 'jellyfin',
        message: 'Health check slow',
        created_at: '2026-01-01T00:00:00.000Z',
      },
    ]);
    const sessions = JSON.parse((await run(['sessions', 'list', '--json'])).stdout);
    expect(sessions[0]).toMatchObject({
      id: 1,
      status: 'completed',
      trigger: 'import',
      cli_session_id: '45012bfe-e406-4917-bfb6-ea536b9713e0',
      num_turns: 2,
    });
  });

  it('prints the exact context block, after decay', async () => {
    const clock = fakeClock();
    const { run } = fresh(clock);
    await run([
      'memories',
      'add',
      '--category',
      'timing',
      '--service',
      'Jellyfin',
      'Takes 60s to start',
    ]);
    await run([
      'memories',
      'add',
      '--category',
      'remediation',
      '--confidence',
      '0.95',
      'Retry DNS once',
    ]);
    expect((await run(['context'])).stdout).toBe(
      '## Operational Memory (2 of 2 memories, ~44 tokens)\n\n### jellyfin\n- [timing] Takes 60s to start (confidence: 0.7)\n\n### general\n- [remediation] Retry DNS once (confidence: 0.95)\n',
    );
    clock.advance(44 * DAY_MS);
    expect((await run(['context'])).stdout).toContain(
      '- [timing] Takes 60s to start (confidence: 0.5)',
    );
    clock.advance(60 * DAY_MS);
    const empty = await run(['context']);
    expect(empty).toMatchObject({ code: 0, stdout: '' });
    expect(empty.stderr).toContain('no active memories');
  });

  it('curates: edit, pin, unpin, delete, with history', async () => {
    const { run } = fresh();
    await run([
      'memories',
      'add',
      '--category',
      'behavior',
      '--service',
      'db',
      'Locks up under backup',
    ]);
    expect(
      (
        await run([
          'memories',
          'edit',
          '1',
          '--confidence',
          '0.9',
          '--text',
          'Locks up during the nightly backup',
        ])
      ).code,
    ).toBe(0);
    expect((await run(['memories', 'pin', '1'])).stdout).toContain('pinned');
    const history = JSON.parse((await run(['memories', 'history', '1', '--json'])).stdout);
    expect(history.map((h: { action: string }) => h.action)).toEqual([
      'created',
      'edited',
      'pinned',
    ]);
    expect((await run(['memories', 'delete', '1'])).stdout).toBe('1 memory deleted\n');
    expect((await run(['memories', 'list', '--all'])).stdout).toBe('no memories\n');
  });

  it.each([
    [['memories', 'edit', '1', '--confidence', '1.5'], /confidence: must be a number from 0 to 1/],
    [['memories', 'edit', 'one', '--confidence', '0.5'], /memory id must be a whole number/],
    [['memories', 'add', '--category', 'gossip', 'x'], /category: "gossip" is not one of timing/],
    [['memories', 'add', '--category', 'timing'], /needs the observation text/],
    [['memories', 'list', '--bogus'], /Unknown option '--bogus'/],
    [['events', 'list', '--level', 'loud'], /--level must be one of info, warning, critical/],
    [['context', '--budget=-5'], /--budget must be from 0/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['ingest', 'a', 'b'], /unexpected argument "b"/],
  ])('%j is a usage error (exit 2) that changes nothing', async (argv, message) => {
    const { run } = fresh();
    await run(['memories', 'add', '--category', 'timing', '--service', 'db', 'Slow start']);
    const before = (await run(['memories', 'list', '--all', '--json'])).stdout;
    const r = await run(argv as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect((await run(['memories', 'list', '--all', '--json'])).stdout).toBe(before);
  });

  it('names a bad environment variable and its value', async () => {
    const { runCli } = await import('../../src/cli/main.js');
    let stderr = '';
    const code = await runCli(['memories', 'list'], {
      stdout: () => {},
      stderr: (t) => {
        stderr += t;
      },
      stdin: [],
      env: {
        WATCHKEEPER_MEMORY_BUDGET: 'lots',
        WATCHKEEPER_DATA_DIR: mkdtempSync(join(tmpdir(), 'wk-')),
      },
      clock: fakeClock(),
      onSignal: () => () => {},
    });
    expect(code).toBe(2);
    expect(stderr).toContain('WATCHKEEPER_MEMORY_BUDGET="lots"');
  });

  it('runs as a real process through the bin script (the path npx takes)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-bin-'));
    dirs.push(dataDir);
    const env = { ...process.env, WATCHKEEPER_DATA_DIR: dataDir };
    const exec = promisify(execFile);
    const ingest = await exec(process.execPath, [BIN.pathname, 'ingest', REAL.pathname], { env });
    expect(ingest.stdout).toContain('session 1 (completed)');
    const ctx = await exec(process.execPath, [BIN.pathname, 'context'], { env });
    expect(ctx.stdout).toContain('- [timing] Takes 60s to start after restart (confidence: 0.7)');
    await expect(
      exec(process.execPath, [BIN.pathname, 'memories', 'frob'], { env }),
    ).rejects.toMatchObject({ code: 2 });
  });
});
