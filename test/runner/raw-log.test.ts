import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createRawLog } from '../../src/runner/raw-log.js';

let dir: string;
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watchkeeper-raw-log-'));
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
  rmSync(dir, { recursive: true, force: true });
});

describe('createRawLog', () => {
  it('waits out backpressure hundreds of times without piling up listeners', async () => {
    const path = join(dir, 'sessions', '1.ndjson');
    const log = createRawLog(path);
    // Each chunk is over the file stream's 16 KB buffer, so every write waits for 'drain'.
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const rounds = 300;
    for (let i = 0; i < rounds; i += 1) await log.write(chunk);
    await log.close();
    // Warnings are emitted on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    expect(readFileSync(path).length).toBe(rounds * chunk.length);
  });
});
