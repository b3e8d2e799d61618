/**
 * A conversation's messages posted over the API are appended awaited (this file also runs on
 * PostgreSQL): read, then written in one transaction guarded on the number read, read again when
 * another writer took it. Numbers stay gapless and unique however many are posted at once, a
 * retry at the same seq is a duplicate, nothing holds the event loop while it is written, and a
 * message that cannot take a number after all its tries is refused as busy, not stored.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { NewMessage } from '../../src/db/conversations/conversations.js';
import { testApp, type TestApp } from '../helpers/db.js';
import { blockingDuring } from '../helpers/postgres.js';

let app: TestApp;
beforeEach(() => {
  app = testApp();
});
afterEach(() => app.close());

const message = (content: string, more: Partial<NewMessage> = {}): NewMessage => ({
  conversationId: 'c1',
  scope: 'conversation:c1',
  role: 'user',
  content,
  at: app.clock.now(),
  ...more,
});

describe('an awaited append', () => {
  it('numbers twenty messages posted at once 0 to 19, each once, without blocking', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `message ${i}`);
    let outcomes: Awaited<ReturnType<TestApp['stores']['conversations']['append']>>[] = [];
    const blocked = await blockingDuring(app.stores.db, async () => {
      outcomes = await Promise.all(texts.map((t) => app.stores.conversations.append(message(t))));
    });
    expect(blocked).toBe(0);
    expect(outcomes.every((o) => o.kind === 'created')).toBe(true);
    const stored = await app.stores.conversations.messages('c1', 0, 100);
    expect(stored.map((m) => m.seq)).toEqual(texts.map((_, i) => i));
    expect(stored.map((m) => m.content).sort()).toEqual([...texts].sort());
    expect(await app.stores.conversations.get('c1')).toMatchObject({
      lastSeq: 19,
      messageCount: 20,
    });
  });

  it('answers a retry at the same seq as a duplicate, another text there or a gap as a conflict', async () => {
    const append = (content: string, seq: number) =>
      app.stores.conversations.append(message(content, { seq }));
    expect((await append('first', 0)).kind).toBe('created');
    expect(await append('first', 0)).toMatchObject({ kind: 'duplicate', message: { seq: 0 } });
    expect(await append('another', 0)).toMatchObject({ kind: 'conflict', expectedSeq: 1 });
    expect(await append('too far', 5)).toMatchObject({
      kind: 'conflict',
      expectedSeq: 1,
      existing: null,
    });
    expect(
      await app.stores.conversations.append(
        message('elsewhere', { scope: 'team', requireScope: true }),
      ),
    ).toEqual({ kind: 'scope_mismatch', scope: 'conversation:c1' });
    expect(await app.stores.conversations.get('c1')).toMatchObject({ lastSeq: 0, messageCount: 1 });
  });

  it('refuses as busy, storing nothing, when other writers keep taking its next number', async () => {
    await app.stores.conversations.append(message('first'));
    // A trigger that skips every update of the conversation: each guarded write finds its
    // number taken, as it would under writers that never stop.
    const { db } = app.stores;
    const postgres = db.engine === 'postgres';
    if (postgres) {
      db.exec(`CREATE FUNCTION wk_test_skip() RETURNS trigger LANGUAGE plpgsql
        AS $$ BEGIN RETURN NULL; END $$`);
      db.exec(`CREATE TRIGGER wk_test_skip BEFORE UPDATE ON conversations
        FOR EACH ROW EXECUTE FUNCTION wk_test_skip()`);
    } else {
      db.exec(`CREATE TRIGGER wk_test_skip BEFORE UPDATE ON conversations
        BEGIN SELECT RAISE(IGNORE); END`);
    }
    try {
      await expect(app.stores.conversations.append(message('second'))).rejects.toMatchObject({
        code: 'busy',
        message:
          'conversation c1: other writers kept taking its next number; send the message again',
      });
      expect((await app.stores.conversations.messages('c1', 0, 10)).map((m) => m.content)).toEqual([
        'first',
      ]);
    } finally {
      db.exec(
        postgres
          ? 'DROP TRIGGER wk_test_skip ON conversations; DROP FUNCTION wk_test_skip()'
          : 'DROP TRIGGER wk_test_skip',
      );
    }
  });
});
