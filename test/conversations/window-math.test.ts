import { describe, expect, it } from 'vitest';

import { extractionWindows, summaryRange } from '../../src/conversations/index.js';

describe('summaryRange (seed 001, window 14)', () => {
  it.each([
    [5, [0, 5]],
    [13, [0, 13]],
    [15, [2, 15]],
    [19, [6, 19]],
  ])('last saved seq %i -> %j', (last, [start, end]) => {
    expect(summaryRange(last, 14)).toEqual({ startSeq: start, endSeq: end });
  });

  it('makes an odd start even so a user message stays with its answer', () => {
    expect(summaryRange(16, 14)).toEqual({ startSeq: 4, endSeq: 16 });
  });
});

/** A message of about `tokens` tokens (4 characters each). */
const msg = (seq: number, tokens: number) => ({
  seq,
  role: seq % 2 === 0 ? 'user' : 'assistant',
  content: `m${seq} `.padEnd(tokens * 4, 'x'),
});

describe('extractionWindows (seed 000: ~500 tokens, ~100 overlap)', () => {
  const opts = { fromSeq: 0, windowTokens: 500, overlapTokens: 100 };

  it('cuts a conversation into windows of at most 500 tokens that overlap by about 100', () => {
    const messages = Array.from({ length: 20 }, (_, i) => msg(i, 100));
    const windows = extractionWindows(messages, opts);
    expect(windows.map((w) => [w.startSeq, w.endSeq])).toEqual([
      [0, 4],
      [4, 8],
      [8, 12],
      [12, 16],
      [16, 19],
    ]);
    expect(windows.every((w) => w.tokens <= 500)).toBe(true);
  });

  it('starts the first window with about 100 tokens of what was already read', () => {
    const messages = Array.from({ length: 10 }, (_, i) => msg(i, 60));
    const windows = extractionWindows(messages, { ...opts, fromSeq: 6 });
    expect(windows.map((w) => [w.startSeq, w.endSeq])).toEqual([[5, 9]]);
    expect(extractionWindows(messages, { ...opts, fromSeq: 10 })).toEqual([]);
  });

  it('cuts a message longer than a window into pieces', () => {
    const windows = extractionWindows([msg(0, 1200), msg(1, 10)], opts);
    expect(windows.length).toBeGreaterThanOrEqual(3);
    expect(windows.every((w) => w.tokens <= 500)).toBe(true);
    expect(windows.at(-1)!.endSeq).toBe(1);
    expect(windows.map((w) => w.messages.map((m) => m.content).join('')).join('')).toContain('xx');
  });
});
