import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { type StreamMessage, toMessage } from '../../src/stream/index.js';
import {
  entriesFromFeedItem,
  entriesFromMessage,
  type LogEntry,
  MAX_TOOL_OUTPUT_CHARS,
} from '../../src/web/session-log.js';
import { assistantBlocks, assistantText, result, toolResult } from '../helpers/stream.js';

const message = (line: string): StreamMessage => toMessage(JSON.parse(line));
const text = (e: LogEntry) => e.segments.map((s) => s.text).join('');
const REAL = new URL('../fixtures/transcripts/real-cli-2.1.197.ndjson', import.meta.url);

describe('log entries', () => {
  it('turns a real CLI transcript into one line per step', () => {
    const lines = readFileSync(REAL, 'utf8').split('\n').filter(Boolean);
    const entries = lines.flatMap((l) => entriesFromMessage(message(l)));
    expect(entries.map((e) => [e.kind, e.label, e.title, text(e), e.pre])).toEqual([
      ['system', 'system', null, 'session started · claude-haiku-4-5 · 24 tools', null],
      [
        'text',
        'assistant',
        null,
        'Checking jellyfin.\n[EVENT:warning:jellyfin] Health check slow',
        null,
      ],
      ['tool', 'tool', 'Bash', 'echo hello-from-tool', null],
      ['tool-result', 'output', null, '', 'hello-from-tool'],
      [
        'text',
        'assistant',
        null,
        'All good.\n[MEMORY:timing:jellyfin] Takes 60s to start after restart\n[EVENT:info:jellyfin] Recovered',
        null,
      ],
      ['result', 'result', null, 'session complete (2 turns, $0.0002, 406 ms)', null],
    ]);
    expect(entries[1]!.segments).toEqual([
      { text: 'Checking jellyfin.\n', marker: null },
      { text: '[EVENT:warning:jellyfin]', marker: 'warning' },
      { text: ' Health check slow', marker: null },
    ]);
  });

  it('names the key input of each tool, clipped to one line', () => {
    const calls: [string, Record<string, unknown>, string][] = [
      ['Read', { file_path: '/etc/hosts', limit: 3 }, '/etc/hosts'],
      ['Edit', { file_path: '/srv/a.yml', old_string: 'x' }, '/srv/a.yml'],
      ['Grep', { pattern: 'ERROR|FATAL', path: '/var/log' }, 'ERROR|FATAL'],
      ['Glob', { pattern: '**/*.conf' }, '**/*.conf'],
      [
        'WebFetch',
        { url: 'https://status.example.com', prompt: 'x' },
        'https://status.example.com',
      ],
      ['WebSearch', { query: 'jellyfin 10.9 crash' }, 'jellyfin 10.9 crash'],
      ['Task', { description: 'd', prompt: 'look\n  at the   logs' }, 'look at the logs'],
      ['mcp__x__y', { anything: 1 }, ''],
    ];
    for (const [name, input, expected] of calls) {
      const [e] = entriesFromMessage(
        message(assistantBlocks([{ type: 'tool_use', id: 't', name, input }])),
      );
      expect([e!.title, text(e!)]).toEqual([name, expected]);
    }
    const [long] = entriesFromMessage(
      message(
        assistantBlocks([
          { type: 'tool_use', id: 't', name: 'Bash', input: { command: 'x'.repeat(1000) } },
        ]),
      ),
    );
    expect(text(long!).length).toBeLessThanOrEqual(300);
  });

  it('marks subagent lines and error results; clips long tool output', () => {
    const sub = message(
      assistantText('[EVENT:critical:db] from a subagent', { parent: 'toolu_9' }),
    );
    expect(entriesFromMessage(sub)[0]).toMatchObject({ label: 'subagent', subagent: true });

    const big = toolResult(`${'a'.repeat(MAX_TOOL_OUTPUT_CHARS)}TAIL`);
    const [out] = entriesFromMessage(message(big));
    expect(out!.pre).toBe(`${'a'.repeat(MAX_TOOL_OUTPUT_CHARS)}\n… (4 more characters)`);

    const failed = message(
      JSON.stringify({
        type: 'user',
        message: {
          content: [{ type: 'tool_result', tool_use_id: 't', content: 'denied', is_error: true }],
        },
        parent_tool_use_id: null,
      }),
    );
    expect(entriesFromMessage(failed)[0]).toMatchObject({ error: true, label: 'tool error' });

    const errorResult = message(
      result('', { subtype: 'error_max_turns', is_error: true, errors: ['too many turns'] }),
    );
    expect(entriesFromMessage(errorResult)[0]).toMatchObject({
      kind: 'result',
      error: true,
      pre: 'too many turns',
    });
    expect(text(entriesFromMessage(errorResult)[0]!)).toMatch(/^session error: error_max_turns \(/);
  });

  it('skips thinking, user text and unknown message types; shows stderr', () => {
    const thinking = assistantBlocks([{ type: 'thinking', thinking: 'hmm' }]);
    expect(entriesFromMessage(message(thinking))).toEqual([]);
    expect(entriesFromMessage(message('{"type":"rate_limit_event"}'))).toEqual([]);
    expect(
      entriesFromMessage(message('{"type":"user","message":{"content":"the prompt"}}')),
    ).toEqual([]);
    const [err] = entriesFromFeedItem({ seq: 1, kind: 'stderr', text: 'warning: x\n' });
    expect([err!.kind, err!.label, text(err!)]).toEqual(['stderr', 'stderr', 'warning: x']);
    expect(entriesFromFeedItem({ seq: 2, kind: 'end', status: 'completed' })).toEqual([]);
  });
});
