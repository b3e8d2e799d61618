/** The Overview's disk use card: the database and the session logs, and what retention keeps. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { formatBytes, measureDiskUse } from '../../src/web/overview-data.js';
import { webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
afterEach(() => {
  h.close();
  cookie = '';
});

/** The value and sub line of the disk use card, without tags. */
let cookie = '';
async function diskCard(): Promise<{ value: string; sub: string; title: string }> {
  if (!cookie) ({ cookie } = await h.login());
  const page = await (await h.request('/', { headers: { Cookie: cookie } })).text();
  const m =
    /<div class="card stat" id="disk-use" title="([^"]*)">\s*<div class="label">Disk use<\/div>\s*<div class="value">(.*?)<\/div>\s*<div class="sub">(.*?)<\/div>/s.exec(
      page,
    );
  expect(m, 'disk use card').not.toBeNull();
  return { title: m![1]!, value: m![2]!.trim(), sub: m![3]!.trim() };
}

function writeLog(name: string, bytes: number): void {
  const dir = join(h.dataDir, 'sessions');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), 'x'.repeat(bytes));
}

describe('disk use on the overview', () => {
  it('shows the database and the logs, and how long they are kept', async () => {
    h = webHarness({ env: { WATCHKEEPER_RETENTION: '90d' } });
    writeLog('1.ndjson', 3 * 1024);
    writeLog('1.stderr.log', 1024);
    // Signed in first: the sizes are then those the page reads.
    ({ cookie } = await h.login());
    const use = measureDiskUse(join(h.dataDir, 'watchkeeper.db'), join(h.dataDir, 'sessions'));
    expect(use.logBytes).toBe(4096);
    expect(use.logFiles).toBe(2);
    expect(use.databaseBytes).toBeGreaterThan(0);

    const card = await diskCard();
    expect(card.value).toBe(formatBytes(use.databaseBytes + 4096));
    expect(card.sub).toBe(`database ${formatBytes(use.databaseBytes)} · logs 4.0 KB · kept 90d`);
    expect(card.title).toContain('(2 files)');
    expect(card.title).toContain('older than 90d every day');
  });

  it('says when everything is kept, and measures again after a minute', async () => {
    h = webHarness();
    writeLog('1.ndjson', 2048);
    expect((await diskCard()).sub).toMatch(/logs 2.0 KB · kept forever$/);
    expect((await diskCard()).title).toContain('set WATCHKEEPER_RETENTION');

    writeLog('2.ndjson', 2048);
    expect((await diskCard()).sub).toMatch(/logs 2.0 KB/);
    h.clock.advance(61_000);
    expect((await diskCard()).sub).toMatch(/logs 4.0 KB/);
  });

  it('writes sizes as people read them', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(12 * 1024 * 1024)).toBe('12 MB');
    expect(formatBytes(3.25 * 1024 ** 3)).toBe('3.3 GB');
  });
});
