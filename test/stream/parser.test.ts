import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { markersFromMessage } from '../../src/stream/markers.js';
import { parseStream, StreamParser } from '../../src/stream/parser.js';
import type { StreamMessage } from '../../src/stream/types.js';
import { assistantText, init, result, transcript } from '../helpers/stream.js';

const REAL = new URL('../fixtures/transcripts/real-cli-2.1.197.ndjson', import.meta.url);

function parseAll(input: Buffer, chunkSize: number, maxLineBytes?: number) {
  const messages: StreamMessage[] = [];
  const p = new StreamParser({
    onMessage: (m) => messages.push(m),
    ...(maxLineBytes ? { maxLineBytes } : {}),
  });
  for (let i = 0; i < input.length; i += chunkSize) p.write(input.subarray(i, i + chunkSize));
  p.end();
  return { messages, stats: p.stats };
}

describe('StreamParser', () => {
  it('parses a real CLI capture the same way whatever the chunk size', () => {
    const bytes = readFileSync(REAL);
    for (const size of [1, 7, 4096, bytes.length]) {
      const { messages, stats } = parseAll(bytes, size);
      expect(messages.map((m) => m.type)).toEqual([
        'system',
        'assistant',
        'assistant',
        'user',
        'assistant',
        'result',
      ]);
      expect(stats).toMatchObject({
        lines: 6,
        messages: 6,
        nonJsonLines: 0,
        oversizedLines: 0,
        unterminatedLastLine: false,
      });
      expect(messages.flatMap(markersFromMessage).map((m) => m.kind)).toEqual([
        'event',
        'memory',
        'event',
      ]);
    }
  });

  it('survives junk lines, blank lines and a truncated last line, counting each', () => {
    const input = Buffer.from(
      [
        'nvm: using node 20',
        init(),
        '',
        '{"type":"assistant","message":{"content":[{"type":"te', // cut mid-object
        assistantText('[EVENT:info:a] after the junk'),
        '[SandboxDebug] noise',
        '{"type":"future_thing","x":1}',
        result('done'),
      ].join('\n') + '\n{"type":"assistant","message":{"con', // a last line cut off, no newline
    );
    const { messages, stats } = parseAll(input, 5);
    expect(messages.map((m) => m.type)).toEqual(['system', 'assistant', 'unknown', 'result']);
    expect(stats).toMatchObject({
      blankLines: 1,
      nonJsonLines: 4,
      unknownTypes: 1,
      unterminatedLastLine: true,
    });
  });

  it('skips a 50 MB line with memory bounded by the cap, and parses what follows', () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const head = Buffer.from(`${init()}\n{"type":"user","message":{"content":"`);
    const tail = Buffer.from(
      `"}}\n${transcript([assistantText('[EVENT:warning:big] after the huge line'), result('ok')])}`,
    );
    const messages: StreamMessage[] = [];
    const p = new StreamParser({ maxLineBytes: 1024 * 1024, onMessage: (m) => messages.push(m) });
    globalThis.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    p.write(head);
    for (let sent = 0; sent < 50 * 1024 * 1024; sent += chunk.length) {
      p.write(chunk);
      if ((sent & 0xfffff) === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }
    p.write(tail);
    p.end();
    expect(p.stats.oversizedLines).toBe(1);
    expect(p.stats.bytes).toBeGreaterThan(50 * 1024 * 1024);
    expect(messages.map((m) => m.type)).toEqual(['system', 'assistant', 'result']);
    expect(messages.flatMap(markersFromMessage)).toHaveLength(1);
    // Buffering the whole line would add 50 MB; the splitter holds at most the 1 MB cap.
    expect(peak - before).toBeLessThan(8 * 1024 * 1024);
  });

  it('parses an async byte stream and reports its stats', async () => {
    async function* source() {
      yield Buffer.from(init() + '\n');
      yield assistantText('hi') + '\r\n';
      yield result('hi');
    }
    const seen: string[] = [];
    const stats = await parseStream(source(), { onMessage: (m) => seen.push(m.type) });
    expect(seen).toEqual(['system', 'assistant', 'result']);
    expect(stats.unterminatedLastLine).toBe(true);
  });
});
