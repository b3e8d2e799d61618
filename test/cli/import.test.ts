/**
 * `watchkeeper import` of a file with a line too long to hold: the line is refused by its number
 * (the rest comes in) and a header that long stops the import with a clear error, never a crash.
 */
import { openSync, writeSync, closeSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { cliIn } from '../helpers/cli.js';

const OFF = { WATCHKEEPER_EMBEDDINGS: 'off' };
const HEADER = JSON.stringify({ format: 'watchkeeper-memory/1', memories: 2 });
const GOOD = JSON.stringify({
  type: 'memory',
  text: 'jellyfin takes 60 seconds to start after a restart',
  service: 'jellyfin',
  category: 'timing',
  confidence: 0.7,
  created_at: '2025-12-01T08:00:00.000Z',
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A file whose line `at` (1-based, among `lines`) is a JSON string of `bytes` bytes. */
function fileWithLongLine(dir: string, lines: string[], at: number, bytes: number): string {
  const path = join(dir, 'long.jsonl');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  lines.forEach((line, i) => {
    if (i + 1 !== at) {
      writeSync(fd, `${line}\n`);
      return;
    }
    writeSync(fd, '{"type":"memory","text":"');
    for (let left = bytes; left > 0; left -= chunk.length)
      writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    writeSync(fd, '"}\n');
  });
  closeSync(fd);
  return path;
}

describe('watchkeeper import of an over-long line', () => {
  it('refuses the line by its number and imports the others', async () => {
    const cli = cliIn(undefined, undefined, OFF);
    dirs.push(cli.dataDir);
    const file = fileWithLongLine(cli.dataDir, [HEADER, '', GOOD], 2, 17 * 1024 * 1024);
    const run = await cli.run(['import', file]);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'line 2: refused line: the line is 17 MiB, over the limit of 16 MiB for one line (not read)',
    );
    expect(run.stdout).toContain('Created 1, reinforced 0, skipped 0, refused 1.');
  });

  it('stops with a clear error when the header line is the one too long', async () => {
    const cli = cliIn(undefined, undefined, OFF);
    dirs.push(cli.dataDir);
    const file = fileWithLongLine(cli.dataDir, ['', GOOD], 1, 17 * 1024 * 1024);
    const run = await cli.run(['import', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'line 1: the line is 17 MiB, over the limit of 16 MiB for one line (not read)',
    );
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});
