/**
 * End to end: the real Claude CLI (the pinned package) with the plugin loaded from `plugin/`
 * (`--plugin-dir`), against the simulated model on loopback, with the installed `watchkeeper`
 * (bin/watchkeeper.js, built) on PATH. The Stop hook indexes the session it ran in, in the
 * background; the CLI's own transcript files (the session and its subagent) are indexed into the
 * expected ideas, entities and relations; the model invokes /remember, whose forked context runs
 * `watchkeeper graph remember` and answers with what was decided.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { openStores, type Stores } from '../../src/db/index.js';
import {
  type SimBlock,
  type SimRequest,
  type SimulatedModel,
  startSimulatedModel,
} from '../../src/sim/messages-api.js';

const CLAUDE = loadConfig({}).runner.claudeBin;
const BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../../plugin', import.meta.url));

const text = (t: string): SimBlock => ({ type: 'text', text: t });
const tool = (name: string, input: Record<string, unknown>): SimBlock => ({
  type: 'tool_use',
  name,
  input,
});

/** What the simulated model says, by the request it gets. */
function script(r: SimRequest): SimBlock[] {
  const tools = Array.isArray(r.body.tools) ? r.body.tools : [];
  if (tools.length === 0) return [text('ok')];
  // The forked context of /remember: the skill's instructions are its prompt.
  if (
    r.prompt.startsWith('Base directory for this skill') &&
    r.prompt.includes('Recall from the memory graph')
  ) {
    if (r.toolResults.length === 0) {
      return [
        tool('Bash', {
          command: 'watchkeeper graph remember "decisions about the photo database"',
          description: 'recall',
        }),
      ];
    }
    const out = r.toolResults[0]!.content;
    const decision = out.split('\n').find((l) => l.startsWith('- decision')) ?? 'nothing found';
    return [text(`From memory: ${decision}`)];
  }
  if (r.prompt.startsWith('Check the backup')) {
    return [text('The nightly backup includes the Postgres dump of the photo library at 00:30.')];
  }
  if (r.prompt.startsWith('Which database')) {
    if (r.turn === 0) {
      return [
        text('We decided to use PostgreSQL for the photo library, because Immich needs it.'),
        tool('Task', {
          description: 'check backup',
          prompt: 'Check the backup of the photo database.',
          subagent_type: 'general-purpose',
        }),
      ];
    }
    return [text('Additionally, we keep seven daily dumps of the PostgreSQL database.')];
  }
  if (r.prompt.startsWith('What did we decide')) {
    if (r.turn === 0)
      return [
        tool('Skill', {
          skill: 'watchkeeper-memory:remember',
          args: 'decisions about the photo database',
        }),
      ];
    return [text(`Recalled. ${r.toolResults[0]?.content ?? ''}`)];
  }
  return [text('(unexpected request)')];
}

let sim: SimulatedModel;
let root: string;
let env: Record<string, string>;
let stores: Stores | undefined;

beforeAll(async () => {
  sim = await startSimulatedModel(script);
  root = mkdtempSync(join(tmpdir(), 'watchkeeper-plugin-'));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'watchkeeper'));
  mkdirSync(join(root, 'project'));
  env = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: join(root, 'home'),
    ANTHROPIC_BASE_URL: sim.url,
    ANTHROPIC_API_KEY: 'simulated',
    WATCHKEEPER_DATA_DIR: join(root, 'data'),
    WATCHKEEPER_EMBEDDINGS: 'off',
  };
  mkdirSync(env.HOME!);
});

afterAll(async () => {
  stores?.close();
  await sim?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Runs the CLI in the project folder; resolves with its stream-json lines. */
function claude(prompt: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      CLAUDE,
      [
        '-p',
        prompt,
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'dontAsk',
        '--allowedTools',
        'Task,Skill',
        '--plugin-dir',
        PLUGIN,
      ],
      { cwd: join(root, 'project'), env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`claude exited ${code}: ${err}`));
      else
        resolve(
          out
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Record<string, unknown>),
        );
    });
  });
}

function watchkeeper(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: join(root, 'project'),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`watchkeeper ${args.join(' ')}: ${code} ${err}`)),
    );
  });
}

/**
 * Waits (polling the database) until `check` holds; the hook's indexer runs detached, and on a
 * busy machine it takes a while to start: the bound only catches an indexer that never writes.
 */
async function eventually<T>(check: () => T | null | undefined | false, what: string): Promise<T> {
  for (let i = 0; i < 1800; i += 1) {
    try {
      stores ??= openStores(join(env.WATCHKEEPER_DATA_DIR!, 'watchkeeper.db'));
      const v = check();
      if (v) return v;
    } catch {
      // The database is being created by the indexer.
    }
    await sleep(100);
  }
  // What the detached indexer said, if it ran: the reason it did not index.
  const logFile = join(env.WATCHKEEPER_DATA_DIR!, 'graph-hook.log');
  const said = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '(no graph-hook.log)';
  throw new Error(`timed out waiting for ${what}; graph-hook.log:\n${said}`);
}

const sessionOf = (lines: Record<string, unknown>[]) =>
  lines.find((l) => l.type === 'system' && l.subtype === 'init')!.session_id as string;

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')}: ${code} ${out}`)),
    );
  });
}

describe('installing the plugin', () => {
  it('installs from its folder as a marketplace, with its four skills and the Stop hook', async () => {
    await run(CLAUDE, ['plugin', 'marketplace', 'add', PLUGIN]);
    await run(CLAUDE, ['plugin', 'install', 'watchkeeper-memory@watchkeeper']);
    const details = await run(CLAUDE, ['plugin', 'details', 'watchkeeper-memory@watchkeeper']);
    expect(details).toMatch(
      /Skills \(4\)\s+memory-backfill, memory-stats, memory-topics, remember/,
    );
    expect(details).toMatch(/Hooks \(1\)\s+Stop/);
    // Installed for the user: the next test sessions load it twice otherwise.
    await run(CLAUDE, ['plugin', 'uninstall', 'watchkeeper-memory@watchkeeper']);
  });
});

describe('the Claude Code plugin against the real CLI', { timeout: 300_000 }, () => {
  let first: string;

  it('indexes the session it ran in, from the Stop hook in the background', async () => {
    const lines = await claude('Which database should the photo app use?');
    first = sessionOf(lines);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    const ideas = await eventually(() => {
      const rows = stores!.db
        .prepare(
          'SELECT content, intent, answered FROM ideas WHERE session = ? ORDER BY source_line, id',
        )
        .all(first) as { content: string; intent: string; answered: number | null }[];
      return rows.some((r) => r.content.startsWith('Additionally')) ? rows : null;
    }, 'the hook to index the session');
    expect(ideas).toEqual([
      { content: 'Which database should the photo app use?', intent: 'question', answered: 1 },
      {
        content: 'We decided to use PostgreSQL for the photo library, because Immich needs it.',
        intent: 'decision',
        answered: null,
      },
      {
        content: 'Additionally, we keep seven daily dumps of the PostgreSQL database.',
        intent: 'context',
        answered: null,
      },
    ]);
    const relations = stores!.db
      .prepare(
        `SELECT r.relation_type AS type, t.intent AS target FROM relations r JOIN ideas t ON t.id = r.to_id ORDER BY r.id`,
      )
      .all();
    expect(relations).toEqual([
      { type: 'answers', target: 'question' },
      { type: 'builds_on', target: 'decision' },
    ]);
  });

  it('reads the CLI subagent transcript on a backfill, marked as a subagent, one entity for both spellings', async () => {
    const out = await watchkeeper(['graph', 'index', '--all']);
    expect(out).toMatch(/indexed 1 of 2 files \(1 unchanged\)/);
    const sub = stores!.db
      .prepare(
        "SELECT session, parent_session AS parent, title FROM graph_sessions WHERE kind = 'subagent'",
      )
      .all();
    expect(sub).toEqual([
      {
        session: expect.stringMatching(new RegExp(`^${first}/agent-`)),
        parent: first,
        title: 'general-purpose: check backup',
      },
    ]);
    const pg = stores!.db
      .prepare(
        `SELECT DISTINCT i.session FROM entities e JOIN idea_entities l ON l.entity_id = e.id
         JOIN ideas i ON i.id = l.idea_id WHERE e.name = 'PostgreSQL' ORDER BY i.session`,
      )
      .all() as { session: string }[];
    expect(pg.map((r) => r.session)).toEqual([first, expect.stringMatching(/\/agent-/)]);
  });

  it('recalls with /remember: the model invokes the skill, whose forked context runs watchkeeper', async () => {
    const lines = await claude('What did we decide about the photo database?');
    const result = lines.at(-1)!;
    expect(result).toMatchObject({ type: 'result', subtype: 'success' });
    expect(result.result).toContain('forked execution');
    expect(result.result).toContain(
      'From memory: - decision (firm): We decided to use PostgreSQL for the photo library, because Immich needs it.',
    );
    // The skill's Bash call ran the real `watchkeeper graph remember`.
    const recall = sim.requests.find((r) =>
      r.toolResults.some((t) => t.content.includes('Memory graph for')),
    );
    expect(recall?.toolResults[0]!.content).toContain(
      'Memory graph for "decisions about the photo database"',
    );
    // And this session too is indexed by its Stop hook.
    const second = sessionOf(lines);
    await eventually(
      () => stores!.db.prepare('SELECT 1 FROM ideas WHERE session = ?').get(second),
      'the second session to be indexed',
    );
  });
});
