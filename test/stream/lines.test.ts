import { describe, expect, it } from 'vitest';

import { LineSplitter } from '../../src/stream/lines.js';

function split(chunks: (string | Buffer)[], maxLineBytes = 1024) {
  const lines: string[] = [];
  const oversized: number[] = [];
  const s = new LineSplitter({
    maxLineBytes,
    onLine: (l) => lines.push(l.toString('utf8')),
    onOversized: (n) => oversized.push(n),
  });
  for (const c of chunks) s.push(typeof c === 'string' ? Buffer.from(c) : c);
  const hadTail = s.end();
  return { lines, oversized, hadTail };
}

describe('LineSplitter', () => {
  it('joins a line split across many chunks', () => {
    expect(split(['{"a"', ':1}\n{"b":', '2}\n']).lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('delivers a last line without a newline at end()', () => {
    const r = split(['one\ntwo']);
    expect(r.lines).toEqual(['one', 'two']);
    expect(r.hadTail).toBe(true);
  });

  it('keeps the carriage return for the line parser to strip', () => {
    expect(split(['a\r\nb\r\n']).lines).toEqual(['a\r', 'b\r']);
  });

  it('skips a line over the cap, whether it arrives whole or in pieces, and goes on', () => {
    const long = 'x'.repeat(3000);
    expect(split([`short\n${long}\nafter\n`]).lines).toEqual(['short', 'after']);
    const pieces = split([
      'short\n',
      long.slice(0, 500),
      long.slice(500, 2000),
      long.slice(2000),
      '\nafter\n',
    ]);
    expect(pieces.lines).toEqual(['short', 'after']);
    expect(pieces.oversized).toEqual([3000]);
  });

  it('reports an over-long unterminated last line as oversized', () => {
    const r = split(['ok\n', 'y'.repeat(2000)]);
    expect(r.lines).toEqual(['ok']);
    expect(r.oversized).toEqual([2000]);
  });

  it('does not keep a reference to the caller chunk memory for partial lines', () => {
    const chunk = Buffer.from('abc');
    const lines: string[] = [];
    const s = new LineSplitter({
      maxLineBytes: 100,
      onLine: (l) => lines.push(l.toString()),
      onOversized: () => {},
    });
    s.push(chunk);
    chunk.fill(0x7a); // the caller reuses its buffer
    s.push(Buffer.from('def\n'));
    expect(lines).toEqual(['abcdef']);
  });
});
