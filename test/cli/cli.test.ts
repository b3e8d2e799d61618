import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
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
function binaryFile(dir: string): string {
  const path = join(dir, 'photo.png');
  writeFileSync(path, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
  return path;
}
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
        superseded_by: null,
        last_surfaced_at: null,
        surface_count: 0,
        importance: 'normal',
        importance_boost: 0,
        source: 'marker',
        source_ref: null,
        scope: 'ops',
        archived_at: null,
        archive_reason: null,
        access_count: 0,
        last_accessed_at: null,
        instance: 'local',
        shared: false,
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
        instance: 'local',
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

  it.each([
    ['a folder', (dir: string) => [dir], '', /is a folder/],
    ['the null device', () => [devNull], '', /the input is empty; nothing was imported/],
    ['empty stdin', () => ['-'], '', /the input is empty/],
    ['a binary', (dir: string) => [binaryFile(dir)], '', /the input is binary/],
    ['a text file on stdin', () => ['-'], 'hello\n', /not a stream-json transcript/],
  ])(
    'refuses to ingest %s with exit 2, storing and copying nothing',
    async (_name, args, stdin, message) => {
      const { run, dataDir } = fresh();
      const junk = mkdtempSync(join(tmpdir(), 'watchkeeper-junk-'));
      dirs.push(junk);
      const r = await run(['ingest', ...args(junk)], stdin);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(message);
      expect(JSON.parse((await run(['sessions', 'list', '--json'])).stdout)).toEqual([]);
      expect(existsSync(join(dataDir, 'sessions'))).toBe(false);
    },
  );

  it('refuses a transcript already ingested (exit 2, naming the session) unless --force', async () => {
    const { run, dataDir } = fresh();
    const transcript = readFileSync(REAL, 'utf8');
    expect((await run(['ingest', '-'], transcript)).code).toBe(0);
    const again = await run(['ingest', REAL.pathname]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already recorded as session 1 (import)');
    expect(again.stderr).toContain('--force');
    expect(readdirSync(join(dataDir, 'sessions'))).toEqual(['1.ndjson']);
    const forced = JSON.parse((await run(['ingest', '--force', '--json', '-'], transcript)).stdout);
    expect(forced).toMatchObject({
      session_id: 2,
      status: 'completed',
      memories_created: 0,
      memories_reinforced: 1,
      previous_imports: [1],
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
    [['memories', 'delete', '9']],
    [['memories', 'deactivate', '9']],
    [['memories', 'history', '9']],
    [['memories', 'pin', '9']],
    [['memories', 'unpin', '9']],
    [['memories', 'edit', '9', '--text', 'x']],
    [['memories', 'reactivate', '9']],
  ])('%j: a missing id is exit 1, "no memory with id 9", nothing changed', async (argv) => {
    const { run } = fresh();
    await run(['memories', 'add', '--category', 'timing', '--service', 'db', 'Slow start']);
    const before = (await run(['memories', 'list', '--all', '--json'])).stdout;
    const r = await run(argv);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: 'watchkeeper: no memory with id 9\n' });
    expect((await run(['memories', 'list', '--all', '--json'])).stdout).toBe(before);
    expect(JSON.parse((await run(['memories', 'history', '1', '--json'])).stdout)).toHaveLength(1);
  });

  it('refuses a bulk delete or deactivate with any missing id as a whole, changing nothing', async () => {
    const { run } = fresh();
    await run(['memories', 'add', '--category', 'timing', '--service', 'db', 'Slow start']);
    await run(['memories', 'add', '--category', 'timing', '--service', 'web', 'Fast start']);
    const before = (await run(['memories', 'list', '--all', '--json'])).stdout;
    for (const verb of ['delete', 'deactivate']) {
      const r = await run(['memories', verb, '1', '7', '2', '8']);
      expect(r).toMatchObject({
        code: 1,
        stderr: 'watchkeeper: no memory with id 7, 8; nothing was changed\n',
      });
      expect((await run(['memories', 'list', '--all', '--json'])).stdout).toBe(before);
    }
    expect((await run(['memories', 'deactivate', '1', '2'])).stdout).toBe(
      '2 memories deactivated\n',
    );
    expect((await run(['memories', 'deactivate', '1'])).stdout).toBe(
      '0 memories deactivated (1 already inactive)\n',
    );
    expect((await run(['memories', 'delete', '1', '2'])).stdout).toBe('2 memories deleted\n');
    // A deleted memory keeps its history, and still shows it.
    const history = await run(['memories', 'history', '1', '--json']);
    expect(history.code).toBe(0);
    expect(JSON.parse(history.stdout).map((h: { action: string }) => h.action)).toEqual([
      'created',
      'deactivated',
      'deleted',
    ]);
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

  it('answers --help on any command with that command alone, and touches no data', async () => {
    const { run, dataDir } = fresh();
    const exp = await run(['export', '--help']);
    expect(exp.code).toBe(0);
    expect(exp.stdout).toMatch(/^watchkeeper export /);
    expect(exp.stdout).not.toContain('watchkeeper memories');
    const mem = await run(['memories', 'add', '-h']);
    expect(mem.code).toBe(0);
    expect(mem.stdout).toContain('watchkeeper memories merge ID ID...');
    expect(mem.stdout).not.toContain('watchkeeper serve');
    expect(existsSync(join(dataDir, 'watchkeeper.db'))).toBe(false);
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
