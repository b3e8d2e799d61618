/**
 * A conversation's messages over HTTP come a page at a time, bounded by count and by bytes:
 * a long conversation of large messages never makes an answer grow with it, and `next_cursor`
 * reads every message exactly once. The context answer is bounded the same way.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { MAX_PAGE_BYTES } from '../../src/conversations/index.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

const BEARER = { Authorization: `Bearer ${TOKEN}` };
/** The largest message a client may post, with quotes and line breaks that JSON escapes. */
const BIG = `${'x'.repeat(49_990)}"\n`.repeat(2);

/** `count` messages of 100,000 characters, stored as the API stores them. */
async function seed(id: string, count: number) {
  const { conversations } = h!.stores;
  for (let seq = 0; seq < count; seq += 1) {
    const role = seq % 2 === 0 ? 'user' : 'assistant';
    await conversations.append({
      conversationId: id,
      scope: `conversation:${id}`,
      role,
      content: `${seq} ${BIG}`.slice(0, 100_000),
      at: 1_000 + seq,
    });
  }
}

async function getRaw(path: string) {
  const res = await h!.request(path, { headers: BEARER });
  const text = await res.text();
  return { status: res.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

describe('GET /api/v1/conversations/{id} pages its messages', () => {
  it('answers the documented maximum limit within the byte cap and pages through every message once', async () => {
    h = webHarness();
    const count = 100;
    await seed('big', count);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const { status, bytes, body } = await getRaw(`/api/v1/conversations/big?limit=10000${query}`);
      expect(status).toBe(200);
      // The messages are the cap; the rest of the answer is a few hundred bytes here.
      expect(bytes).toBeLessThan(MAX_PAGE_BYTES + 4_096);
      const seqs = body.messages.map((m: { seq: number }) => m.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      seen.unshift(...seqs);
      cursor = body.next_cursor;
      if (cursor !== null) expect(cursor).toBe(String(seqs[0]));
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i));
    // 100 messages of about 100 KB as JSON take three pages of at most 4 MiB.
    expect(pages).toBe(3);
  });

  it('pages by count too, keeping the existing fields', async () => {
    h = webHarness();
    for (let i = 0; i < 5; i += 1) {
      await h.stores.conversations.append({
        conversationId: 'c1',
        scope: 'conversation:c1',
        role: 'user',
        content: `m${i}`,
        at: 1,
      });
    }
    const first = await getRaw('/api/v1/conversations/c1?limit=2');
    expect(first.body).toMatchObject({ id: 'c1', message_count: 5, next_cursor: '3' });
    expect(first.body.messages.map((m: { content: string }) => m.content)).toEqual(['m3', 'm4']);
    const second = await getRaw('/api/v1/conversations/c1?limit=2&cursor=3');
    expect(second.body.messages.map((m: { seq: number }) => m.seq)).toEqual([1, 2]);
    const last = await getRaw('/api/v1/conversations/c1?limit=2&cursor=1');
    expect(last.body.messages.map((m: { seq: number }) => m.seq)).toEqual([0]);
    expect(last.body.next_cursor).toBeNull();
    const whole = await getRaw('/api/v1/conversations/c1');
    expect(whole.body.messages).toHaveLength(5);
    expect(whole.body.next_cursor).toBeNull();
  });

  it('refuses a cursor that is not one, naming it', async () => {
    h = webHarness();
    await h.stores.conversations.append({
      conversationId: 'c1',
      scope: 'conversation:c1',
      role: 'user',
      content: 'hi',
      at: 1,
    });
    for (const bad of ['abc', '0', '-1', '99999999999']) {
      const { status, body } = await getRaw(`/api/v1/conversations/c1?cursor=${bad}`);
      expect(status).toBe(400);
      expect(body.error.field).toBe('cursor');
    }
  });

  it('documents the cursor in the OpenAPI document', async () => {
    h = webHarness();
    const { body } = await getRaw('/api/v1/openapi.json');
    const op = body.paths['/conversations/{id}'].get;
    expect(op.parameters.map((p: { name: string }) => p.name)).toContain('cursor');
    expect(body.components.schemas.ConversationDetail.properties).toHaveProperty('next_cursor');
  });
});

describe('GET /api/v1/conversations/{id}/context', () => {
  it('carries at most the byte cap of gap messages, counting the rest as omitted', async () => {
    h = webHarness();
    await seed('big', 60);
    const { status, bytes, body } = await getRaw('/api/v1/conversations/big/context');
    expect(status).toBe(200);
    expect(bytes).toBeLessThan(MAX_PAGE_BYTES + 4_096);
    const seqs = body.gap_messages.map((m: { seq: number }) => m.seq);
    expect(seqs.at(-1)).toBe(59);
    expect(body.omitted_messages).toBe(seqs[0]);
    expect(body.omitted_messages).toBeGreaterThan(0);
  });
});
