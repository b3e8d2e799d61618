/**
 * What a transcript is and how much of it is read: a session log is watchkeeper session N only
 * when the sessions table records that file as session N's log (never from its name), and
 * waiting for a turn's last message reads each byte once, from where it left off.
 */
import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { waitForText } from '../../src/graph/file-reader.js';
import { type GraphApp, graphApp } from '../helpers/graph.js';

const REAL_LOG = fileURLToPath(
  new URL('../fixtures/transcripts/real-cli-2.1.197.ndjson', import.meta.url),
);

let app: GraphApp;
beforeEach(() => {
  app = graphApp();
});
afterEach(() => app.close());

const kinds = () =>
  app.stores.db
    .prepare('SELECT session, watchkeeper_session_id AS wk FROM graph_sessions ORDER BY session')
    .all();

describe('session logs are named by watchkeeper records', () => {
  it('a log recorded as session N is wk-N; a file merely named N.ndjson is not', async () => {
    const id = app.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: 0 });
    mkdirSync(join(app.dataDir, 'sessions'), { recursive: true });
    const recorded = join(app.dataDir, 'sessions', `${id}.ndjson`);
    copyFileSync(REAL_LOG, recorded);
    await app.stores.sessions.setLogPath(id, join('sessions', `${id}.ndjson`));
    // Named like a session that exists, but not its recorded log: one in the sessions folder,
    // one anywhere else.
    const other = app.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: 0 });
    const unrecorded = join(app.dataDir, 'sessions', `${other}.ndjson`);
    copyFileSync(REAL_LOG, unrecorded);
    mkdirSync(join(app.dataDir, 'saved'));
    const elsewhere = join(app.dataDir, 'saved', `${id}.ndjson`);
    copyFileSync(REAL_LOG, elsewhere);
    for (const f of [recorded, unrecorded, elsewhere]) await app.graph.index(f);
    expect(kinds()).toEqual([
      { session: String(id), wk: null },
      { session: String(other), wk: null },
      { session: `wk-${id}`, wk: id },
    ]);
  });
});

describe('waiting for the last message', () => {
  it('reads what was appended since its last look, each byte once, across chunks', async () => {
    const file = join(app.dataDir, 'big.jsonl');
    const line = `${JSON.stringify({ type: 'assistant', text: 'x'.repeat(1000) })}\n`;
    writeFileSync(file, line.repeat(3000)); // about 3 MB: several chunks per look
    const from = line.length * 10;
    let looks = 0;
    const last = 'The backup now runs at 01:00 "every" night.';
    const out = await waitForText(file, from, last, {
      waitMs: 60_000,
      sleep: async () => {
        looks += 1;
        // The CLI writes more, and on the third look the message, split over two writes.
        const message = `${JSON.stringify({ type: 'assistant', text: last })}\n`;
        if (looks < 3) appendFileSync(file, line.repeat(1500));
        else if (looks === 3) appendFileSync(file, message.slice(0, 30));
        else appendFileSync(file, message.slice(30));
      },
    });
    expect(out.found).toBe(true);
    expect(looks).toBe(4);
    const size =
      line.length * 6000 + `${JSON.stringify({ type: 'assistant', text: last })}\n`.length;
    expect(out.bytesRead).toBeLessThanOrEqual(size - from);
    expect(out.bytesRead).toBeGreaterThan(size - from - 200);
  });

  it('gives up after the wait, having read the file once', async () => {
    const file = join(app.dataDir, 'quiet.jsonl');
    writeFileSync(file, 'a'.repeat(2_500_000));
    const out = await waitForText(file, 0, 'never said', { waitMs: 500, sleep: async () => {} });
    expect(out).toEqual({ found: false, bytesRead: 2_500_000 });
  });
});
