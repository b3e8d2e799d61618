/** `watchkeeper conversations list|show|summaries` over a real data folder. */
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { MAX_PAGE_BYTES } from '../../src/conversations/index.js';
import { openStores, type Stores } from '../../src/db/index.js';
import { cliIn } from '../helpers/cli.js';

let cli: ReturnType<typeof cliIn>;
let stores: Stores;

beforeEach(async () => {
  cli = cliIn();
  stores = openStores(join(cli.dataDir, 'watchkeeper.db'));
  const at = Date.UTC(2026, 0, 1);
  for (let seq = 0; seq < 8; seq += 1) {
    await stores.conversations.append({
      conversationId: 'c42',
      scope: 'conversation:c42',
      role: seq % 2 === 0 ? 'user' : 'assistant',
      content: `message ${seq}`,
      at: at + seq,
    });
  }
  const first = (await stores.summaries.claim('c42', 0, 5, at))!;
  await stores.summaries.complete(first.id, '- [#0] user: message 0', 812, null, at);
  const second = (await stores.summaries.claim('c42', 0, 7, at))!;
  await stores.summaries.fail(second.id, 'HTTP 529 overloaded', 30, null, at);
});

afterEach(() => stores.close());

describe('watchkeeper conversations', () => {
  it('lists conversations with their latest summary window', async () => {
    const text = await cli.run(['conversations', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ID\s+SCOPE\s+MESSAGES/);
    expect(text.stdout).toMatch(/c42\s+conversation:c42\s+8\s+.*0-5\s+2 \(1 failed\)\s+0/);
    const json = await cli.run(['conversations', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({
        id: 'c42',
        message_count: 8,
        latest_window: { start_seq: 0, end_seq: 5 },
        failed: 1,
      }),
    ]);
  });

  it('shows a conversation and its summary chain', async () => {
    const show = await cli.run(['conversations', 'show', 'c42', '--messages', '2']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('latest summary #1 (messages 0-5)');
    expect(show.stdout).toContain('#7 assistant: message 7');
    expect(show.stdout).not.toContain('#5 assistant');
    const summaries = await cli.run(['conversations', 'summaries', 'c42']);
    expect(summaries.stdout).toMatch(/1\s+0-5\s+6\s+-\s+completed\s+812/);
    expect(summaries.stdout).toMatch(
      /2\s+0-7\s+8\s+1 \(to 5\)\s+failed\s+30\s+.*HTTP 529 overloaded/,
    );
    const json = JSON.parse(
      (await cli.run(['conversations', 'summaries', 'c42', '--json'])).stdout,
    );
    expect(
      json.history.map((s: { id: number; base_summary_id: number | null }) => [
        s.id,
        s.base_summary_id,
      ]),
    ).toEqual([
      [2, 1],
      [1, null],
    ]);
    expect(json.generation).toEqual({ avg_ms: 812, max_ms: 812, total_summaries: 1 });
  });

  it('shows a page of messages at a time, bounded in bytes, with the cursor of the older ones', async () => {
    // 60 messages of 100,000 characters: more than one page of 4 MiB.
    for (let seq = 8; seq < 68; seq += 1) {
      await stores.conversations.append({
        conversationId: 'c42',
        scope: 'conversation:c42',
        role: 'user',
        content: `${seq} ${'y'.repeat(99_990)}`,
        at: Date.UTC(2026, 0, 2) + seq,
      });
    }
    const first = await cli.run(['conversations', 'show', 'c42', '--messages', '100000', '--json']);
    expect(first.code).toBe(0);
    expect(Buffer.byteLength(first.stdout)).toBeLessThan(MAX_PAGE_BYTES + 8_192);
    const page = JSON.parse(first.stdout);
    expect(page.messages.at(-1).seq).toBe(67);
    expect(page.next_cursor).toBe(String(page.messages[0].seq));
    const text = await cli.run(['conversations', 'show', 'c42', '--cursor', page.next_cursor]);
    expect(text.stdout).toContain(
      `#${page.messages[0].seq - 1} user: ${page.messages[0].seq - 1} y`,
    );
    expect(text.stdout).toContain('older: watchkeeper conversations show c42 --cursor ');
    const bad = await cli.run(['conversations', 'show', 'c42', '--cursor', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--cursor: "x" is not a cursor/);
  });

  it('fails clearly on an unknown or malformed id', async () => {
    const unknown = await cli.run(['conversations', 'show', 'nope']);
    expect(unknown).toMatchObject({
      code: 1,
      stderr: 'watchkeeper: no conversation with id nope\n',
    });
    const bad = await cli.run(['conversations', 'summaries', 'no spaces']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not a conversation id/);
    expect((await cli.run(['conversations', 'show'])).code).toBe(2);
  });
});
