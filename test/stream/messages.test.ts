import { describe, expect, it } from 'vitest';

import { MAX_JSON_DEPTH, parseLine } from '../../src/stream/messages.js';

const line = (s: string | Buffer) => parseLine(typeof s === 'string' ? Buffer.from(s) : s);

describe('parseLine', () => {
  it('types the four known message kinds and keeps unknown ones as unknown', () => {
    const kinds = ['system', 'assistant', 'user', 'result', 'stream_event', 'rate_limit_event'].map(
      (t) => {
        const r = line(JSON.stringify({ type: t, subtype: 'x', message: { content: [] } }));
        return r.kind === 'message' ? r.message.type : r.kind;
      },
    );
    expect(kinds).toEqual(['system', 'assistant', 'user', 'result', 'unknown', 'unknown']);
  });

  it('does not depend on key order and tolerates unknown fields', () => {
    const r = line(
      '{"is_error":false,"brand_new_field":{"x":1},"subtype":"success","result":"done","type":"result","num_turns":3}',
    );
    expect(r.kind === 'message' && r.message.type === 'result' && r.message.numTurns).toBe(3);
  });

  it('strips CRLF and surrounding blanks', () => {
    const r = line('  {"type":"system","subtype":"init","session_id":"s1"}\r');
    expect(r.kind === 'message' && r.message.type === 'system' && r.message.sessionId).toBe('s1');
  });

  it('reports blank lines, non-JSON lines, broken JSON and non-objects', () => {
    expect(line('   \r').kind).toBe('blank');
    expect(line('[SandboxDebug] hello')).toMatchObject({ kind: 'junk', reason: 'not_json' });
    expect(line('{"type":"assistant",')).toMatchObject({ kind: 'junk', reason: 'not_json' });
    expect(line('{}').kind).toBe('message');
    expect(line('{"type": 5}')).toMatchObject({
      kind: 'message',
      message: { type: 'unknown', originalType: '' },
    });
  });

  it('skips a line nested deeper than MAX_JSON_DEPTH, which storing it would overflow on', () => {
    const nested = (depth: number) =>
      `{"type":"result","subtype":"success","usage":${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth)}`;
    expect(line(nested(MAX_JSON_DEPTH)).kind).toBe('message');
    expect(line(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ kind: 'junk', reason: 'too_deep' });
    expect(line(nested(50_000))).toMatchObject({ kind: 'junk', reason: 'too_deep' });
    // Brackets inside strings, escaped quotes included, are text, not nesting.
    const text = JSON.stringify({ type: 'assistant', t: `"${'[{'.repeat(5_000)}` });
    expect(line(text).kind).toBe('message');
  });

  it('reads a message with invalid UTF-8 inside a string and flags it', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"type":"result","subtype":"success","result":"a'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('b"}'),
    ]);
    const r = line(bytes);
    expect(r.kind).toBe('message');
    expect(r.kind === 'message' && r.invalidUtf8).toBe(true);
    expect(r.kind === 'message' && r.message.type === 'result' && r.message.result).toBe(
      'a\uFFFD\uFFFDb',
    );
  });

  it('reads tool_result content given as a string or as text blocks', () => {
    const asBlocks = line(
      JSON.stringify({
        type: 'user',
        message: {
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: [
                { type: 'text', text: 'one' },
                { type: 'text', text: 'two' },
              ],
            },
          ],
        },
      }),
    );
    expect(
      asBlocks.kind === 'message' &&
        asBlocks.message.type === 'user' &&
        asBlocks.message.content[0],
    ).toMatchObject({ type: 'tool_result', content: 'one\ntwo' });
  });
});
