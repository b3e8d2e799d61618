/**
 * One exit code per kind of outcome, whatever the command (the README's "Exit codes" table):
 * 0 done, 1 the work failed, 2 bad usage or bad input, a missing input file included, and the
 * reason in one line on stderr. Every command's bad input runs in-process (the table); what only
 * a process shows (a missing file named, a port in use) runs the real binary. Needs dist/.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { cliIn } from '../helpers/cli.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function run(argv: string[], env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-exit-'));
  dirs.push(dataDir);
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...argv],
      {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: dataDir,
          WATCHKEEPER_DATA_DIR: dataDir,
          WATCHKEEPER_EMBEDDINGS: 'off',
          WATCHKEEPER_LOG_LEVEL: 'silent',
          ...env,
        },
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'watchkeeper-exit-inputs-'));
dirs.push(scratch);
const MISSING = join(scratch, 'no-such-input.jsonl');
// Refused on its own: the command gets no chance to reach it.
const UNREACHABLE_DB = 'postgres://wk@127.0.0.1:1/wk';

describe('a missing input file', () => {
  it.each([
    ['ingest', ['ingest', MISSING]],
    ['graph index', ['graph', 'index', MISSING]],
    ['migrate-store --from', ['migrate-store', '--from', MISSING, '--to', UNREACHABLE_DB]],
    ['import', ['import', MISSING]],
    ['import-mcp-memory', ['import-mcp-memory', MISSING]],
    ['import-claudeops', ['import-claudeops', MISSING]],
  ])('%s: exit 2, the file named', async (_name, argv) => {
    const r = await run(argv);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^watchkeeper: /);
    expect(r.stderr).toContain(MISSING);
    expect(r.stderr).not.toContain('unexpected error');
  });
});

describe('the other kinds', () => {
  it('0: done', async () => {
    expect((await run(['migrate'])).code).toBe(0);
    expect((await run(['memories', 'list'])).code).toBe(0);
  });

  it('1: the work failed (nothing by that id, no runner to stop, the database unreachable)', async () => {
    const none = await run(['memories', 'delete', '999']);
    expect(none).toMatchObject({ code: 1, stderr: expect.stringContaining('999') });
    expect((await run(['stop'])).code).toBe(1);
    const db = await run(['memories', 'list'], { WATCHKEEPER_DATABASE_URL: UNREACHABLE_DB });
    expect(db).toMatchObject({ code: 1, stderr: expect.stringContaining('127.0.0.1:1') });
  });

  it('2: bad usage or bad input (an unknown command or flag, a bad setting, malformed input)', async () => {
    expect((await run(['no-such-command'])).code).toBe(2);
    const flag = await run(['memories', 'list', '--no-such-flag']);
    expect(flag).toMatchObject({ code: 2, stderr: expect.stringContaining('--no-such-flag') });
    const setting = await run(['memories', 'list'], { WATCHKEEPER_PORT: 'eighty' });
    expect(setting).toMatchObject({ code: 2, stderr: expect.stringContaining('WATCHKEEPER_PORT') });
    const empty = join(scratch, 'empty.ndjson');
    writeFileSync(empty, '');
    expect((await run(['ingest', empty])).code).toBe(2);
    const folder = join(scratch, 'a-folder');
    mkdirSync(folder);
    const notAFile = await run(['import', folder]);
    expect(notAFile).toMatchObject({ code: 2, stderr: expect.stringContaining(folder) });
  });
});

// A text file where a database or an export is expected.
const NOT_A_DB = join(scratch, 'notes.txt');
writeFileSync(NOT_A_DB, 'root:x:0:0:root:/root:/bin/bash\nnot a database\n');

/** Each command's bad input: [argv, exit code, what the one line on stderr says]. */
const CASES: [string[], number, string | RegExp][] = [
  [['no-such-command'], 2, 'unknown command "no-such-command"'],
  [['serve', '--bogus'], 2, "'--bogus'"],
  [['serve', 'extra'], 2, 'unexpected argument "extra"'],
  [['run', '--tier', '5'], 2, '--tier must be 1, 2 or 3, got "5"'],
  [['run', '--prompt', ''], 2, '--prompt must not be empty'],
  [['stop', '--bogus'], 2, "'--bogus'"],
  [['stop'], 1, /./],
  [['hook', 'bogus'], 2, 'pre-tool-use'],
  [['ingest', '--tier', 'x', MISSING], 2, '--tier must be 1, 2 or 3, got "x"'],
  [['ingest', MISSING], 2, MISSING],
  [['ingest', NOT_A_DB], 2, /./],
  [['memories'], 2, 'memories needs a command; try list, search'],
  [['memories', 'bogus'], 2, 'unknown memories command "bogus"'],
  [['memories', 'list', '--limit', 'x'], 2, '--limit must be a whole number, got "x"'],
  [['memories', 'list', '--bogus'], 2, "'--bogus'"],
  [['memories', 'add', '--category', 'bogus', 'hi'], 2, '"bogus" is not one of'],
  [['memories', 'delete', 'abc'], 2, 'memory id must be a whole number, got "abc"'],
  [['memories', 'delete', '99'], 1, 'no memory with id 99'],
  [['memories', 'edit', '99', '--text', 'hi'], 1, 'no memory with id 99'],
  [['memories', 'history', '99'], 1, 'no memory with id 99'],
  [['memories', 'search', 'q', '--limit', '0'], 2, '--limit must be from 1 to 100, got 0'],
  [['mcp', '--bogus'], 2, "'--bogus'"],
  [['events', 'bogus'], 2, 'unknown events command "bogus"; try list'],
  [['events', 'list', '--level', 'bogus'], 2, '--level must be one of'],
  [['events', 'list', '--session', 'abc'], 2, '--session must be a whole number'],
  [['sessions', 'list', '--tier', '9'], 2, '--tier must be 1, 2 or 3, got "9"'],
  [['sessions', 'list', '--since', '5y'], 2, '--since must be one of'],
  [['cooldowns'], 2, 'cooldowns needs a command; try list, reset, allow'],
  [['cooldowns', 'allow', 's', '--count', 'x', '--until', '2h', '--reason', 'r'], 2, 'count'],
  [['conversations', 'bogus'], 2, 'unknown conversations command "bogus"'],
  [['conversations', 'list', '--limit', 'x'], 2, '--limit must be a whole number'],
  [['conversations', 'show', '99'], 1, 'no conversation with id 99'],
  [['graph', 'bogus'], 2, 'unknown graph command "bogus"'],
  [['graph', 'index', MISSING], 2, MISSING],
  [['graph', 'idea', 'abc'], 2, 'idea id must be a whole number'],
  [['graph', 'idea', '99'], 1, 'no idea with id 99'],
  [['graph', 'remember', 'q', '--budget', 'x'], 2, '--budget must be a whole number'],
  [['context', '--tier', '5'], 2, '--tier must be 1, 2 or 3, got "5"'],
  [['reindex', '--bogus'], 2, "'--bogus'"],
  [['services', 'bogus'], 2, 'unknown services command "bogus"'],
  [['services', 'show', 'nosuch'], 1, 'service "nosuch" is not known'],
  [['decay', '--bogus'], 2, "'--bogus'"],
  [['migrate', '--bogus'], 2, "'--bogus'"],
  [['migrate-store'], 2, '--from'],
  [['migrate-store', '--from', NOT_A_DB, '--to', UNREACHABLE_DB], 2, 'not a SQLite database'],
  [['prune', '--older-than', '1h'], 2, '--older-than must be an age of at least 1d'],
  [['import-claudeops', MISSING], 2, 'no such file'],
  [['import-claudeops', NOT_A_DB], 2, `${NOT_A_DB} is not a Claude Ops database`],
  [['export', '--bogus'], 2, "'--bogus'"],
  [['import', MISSING], 2, `${MISSING}: no such file`],
  [['import', NOT_A_DB], 2, 'not a watchkeeper memory export'],
  [['import-mcp-memory', MISSING], 2, `${MISSING}: no such file`],
  [['import-mcp-memory', NOT_A_DB], 2, `${NOT_A_DB} is not an MCP memory file`],
];

describe('every command: bad input is exit 2, failed work exit 1, one line on stderr', () => {
  const cli = cliIn(undefined, undefined, { WATCHKEEPER_EMBEDDINGS: 'off' });
  dirs.push(cli.dataDir);

  it.each(CASES)('%j: exit %i', async (argv, code, says) => {
    const r = await cli.run(argv);
    expect(r.code).toBe(code);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^watchkeeper: /);
    expect(lines[0]).not.toContain('unexpected error');
    if (typeof says === 'string') expect(lines[0]).toContain(says);
    else expect(lines[0]).toMatch(says);
  });

  it('--version, -V and version print the package version, exit 0', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const argv of [['--version'], ['-V'], ['version']]) {
      expect(await cli.run(argv)).toEqual({
        code: 0,
        stdout: `watchkeeper ${pkg.version as string}\n`,
        stderr: '',
      });
    }
    expect((await cli.run(['help'])).stdout).toContain('watchkeeper version');
  });
});

describe('serve on a port in use', () => {
  it('exit 1, naming the port and the setting that moves it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await run(['serve'], { WATCHKEEPER_PORT: String(port) });
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toEqual([
        expect.stringContaining(`port ${port} is in use; set WATCHKEEPER_PORT`),
      ]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
