/**
 * One exit code per kind of outcome, whatever the command (the README's "Exit codes" table):
 * 0 done, 1 the work failed, 2 bad usage or bad input, a missing input file included. Run
 * through the real binary. Needs dist/.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

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
