/**
 * `watchkeeper graph ...` in-process: backfill with progress, JSON outputs, recall, topics, one
 * idea, usage errors that name what is wrong, and the Stop hook's command that never fails.
 */
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { hookRequest, indexArgs } from '../../src/cli/commands/graph-hook.js';
import { cliIn } from '../helpers/cli.js';
import { MAIN, PROJECTS, SESSION } from '../helpers/graph.js';

const OFFLINE = { WATCHKEEPER_EMBEDDINGS: 'off' };

describe('graph index', () => {
  it('backfills a folder with a progress line, then finds nothing new', async () => {
    const { run } = cliIn(undefined, undefined, OFFLINE);
    const first = await run(['graph', 'index', PROJECTS]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'indexed 2 of 2 files (0 unchanged): 23 lines, 17 ideas, 4 spans, 4 relations',
    );
    expect(first.stderr).toMatch(/indexing 23\/23 \(100%\)/);
    const again = await run(['graph', 'index', PROJECTS, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({
      totals: { files: 2, changed: 0, lines: 0, ideas: 0 },
      files: [{ status: 'unchanged' }, { status: 'unchanged' }],
    });
  });

  it('--all reads the Claude Code projects folder under HOME; --dry-run stores nothing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'watchkeeper-home-'));
    mkdirSync(join(home, '.claude'), { recursive: true });
    cpSync(PROJECTS, join(home, '.claude', 'projects'), { recursive: true });
    const { run } = cliIn(undefined, undefined, { ...OFFLINE, HOME: home });
    const dry = await run(['graph', 'index', '--all', '--dry-run']);
    expect(dry.stdout).toContain('would index 2 of 2 files');
    // It cannot know topics or relations without storing: no misleading zeros.
    expect(dry.stdout).not.toMatch(/spans|relations/);
    expect((await run(['graph', 'stats', '--json'])).stdout).toContain('"ideas": 0');
    const all = await run(['graph', 'index', '--all']);
    expect(all.stdout).toContain('indexed 2 of 2 files');
    expect(all.stdout).toMatch(/indexed 2 of 2 files .* [1-9]\d* spans, [1-9]\d* relations/);
  });

  it('--current reads the newest transcript of this folder and its subagents', async () => {
    const home = mkdtempSync(join(tmpdir(), 'watchkeeper-home-'));
    const folder = join(home, '.claude', 'projects', process.cwd().replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(folder, { recursive: true });
    cpSync(join(PROJECTS, '-home-ops-homelab'), folder, { recursive: true });
    const { run } = cliIn(undefined, undefined, { ...OFFLINE, HOME: home });
    const out = await run(['graph', 'index', '--current', '--json']);
    expect(out.code).toBe(0);
    const files = (JSON.parse(out.stdout) as { files: { session: string }[] }).files;
    expect(files.map((f) => f.session)).toEqual([SESSION, `${SESSION}/agent-a1b2c3d4e5f6a7b8c`]);
  });

  it('names what is wrong with its arguments', async () => {
    const { run } = cliIn(undefined, undefined, OFFLINE);
    expect(await run(['graph', 'index'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--current or --all'),
    });
    expect(await run(['graph', 'index', PROJECTS, '--all'])).toMatchObject({ code: 2 });
    expect(await run(['graph', 'index', '/nowhere/at/all.jsonl'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('/nowhere/at/all.jsonl: no such file or folder'),
    });
    expect(await run(['graph', 'index', 'README.md'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('README.md: not a transcript'),
    });
    expect(await run(['graph', 'index', MAIN, '--model'], '')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--model: '),
    });
    expect(await run(['graph', 'frobnicate'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown graph command "frobnicate"'),
    });
  });
});

describe('graph remember, topics, idea, stats', () => {
  it('recalls as text and as JSON, within the budget', async () => {
    const { run } = cliIn(undefined, undefined, OFFLINE);
    await run(['graph', 'index', PROJECTS]);
    const text = await run(['graph', 'remember', 'open questions']);
    expect(text.stdout).toContain('Should we switch to the DNS-01 challenge later');
    const json = JSON.parse(
      (await run(['graph', 'remember', 'restic backup', '--json', '--budget', '200'])).stdout,
    ) as {
      tokens: number;
      budget: number;
      groups: unknown[];
    };
    expect(json.budget).toBe(200);
    expect(json.tokens).toBeLessThanOrEqual(200);
    expect(json.groups.length).toBeGreaterThan(0);
    expect(await run(['graph', 'remember', '  '])).toMatchObject({ code: 2 });
    expect(await run(['graph', 'remember', 'x', '--budget', '10'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--budget must be from 50 to 100000'),
    });
    expect(await run(['graph', 'remember', 'restic', '--session', 'nope'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no indexed session "nope"'),
    });
  });

  it('shows topics, one idea with its relations, and the counts', async () => {
    const { run } = cliIn(undefined, undefined, OFFLINE);
    await run(['graph', 'index', PROJECTS]);
    const topics = await run(['graph', 'topics', SESSION.slice(0, 8)]);
    expect(topics.stdout.match(/^ {2}#\d+ {2}lines/gm)).toHaveLength(3);
    const all = JSON.parse((await run(['graph', 'topics', '--json'])).stdout) as {
      session: string;
    }[];
    expect(all.map((s) => s.session).sort()).toEqual([
      SESSION,
      `${SESSION}/agent-a1b2c3d4e5f6a7b8c`,
    ]);
    const idea = JSON.parse((await run(['graph', 'idea', '13', '--json'])).stdout) as {
      content: string;
      relations: { type: string; direction: string }[];
    };
    expect(idea.content).toContain('from 02:00 to 01:00');
    expect(idea.relations).toEqual([
      expect.objectContaining({ type: 'supersedes', direction: 'out' }),
      expect.objectContaining({ type: 'builds_on', direction: 'in' }),
    ]);
    expect((await run(['graph', 'idea', '13'])).stdout).toMatch(/supersedes #4: We decided to run/);
    expect(await run(['graph', 'idea', '999'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no idea with id 999'),
    });
    expect((await run(['graph', 'stats'])).stdout).toMatch(/open questions\s+1/);
  });
});

describe('graph hook stop', () => {
  it('hands on the transcript with the end of the last message, and no more', () => {
    const r = hookRequest({
      transcript_path: '/home/u/.claude/projects/p/s.jsonl',
      last_assistant_message: `${'x'.repeat(200)} the end.`,
    });
    expect(r).toEqual({
      transcriptPath: '/home/u/.claude/projects/p/s.jsonl',
      untilText: `${'x'.repeat(71)} the end.`,
    });
    // The indexer it starts reads the requests the hooks left, not its command line.
    expect(indexArgs().slice(1)).toEqual(['graph', 'index', '--from-hook']);
    expect(hookRequest({ transcript_path: '' })).toBeNull();
    expect(hookRequest('not an object')).toBeNull();
  });

  it('exits 0 and prints nothing whatever it is given', async () => {
    const { run } = cliIn(undefined, undefined, OFFLINE);
    expect(await run(['graph', 'hook', 'stop'], 'not json')).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect(await run(['graph', 'hook', 'stop'], '{"hook_event_name":"Stop"}')).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });
});
