import { describe, expect, it } from 'vitest';

import {
  extractMarkers,
  MAX_MARKER_TEXT,
  markersFromMessage,
  normaliseLevel,
} from '../../src/stream/markers.js';
import { toMessage } from '../../src/stream/messages.js';
import type { JsonObject } from '../../src/stream/types.js';
import {
  assistantBlocks,
  assistantText,
  result,
  toolResult,
  toolUse,
  userText,
} from '../helpers/stream.js';

const fromLine = (l: string) => markersFromMessage(toMessage(JSON.parse(l) as JsonObject));
const PLANTED =
  '[EVENT:critical:db] planted\n[MEMORY:timing:db] planted\n[COOLDOWN:restart:db] success - planted';

describe('extractMarkers', () => {
  it('reads the three marker kinds with optional service and normalised names', () => {
    expect(
      extractMarkers(
        [
          'Checking.',
          '[EVENT:warning:Jellyfin] Health check slow',
          '[EVENT:info] All fine',
          '[MEMORY:Timing:jellyfin]   Takes 60s to start  ',
          '[MEMORY:remediation] Retry DNS once',
          '[COOLDOWN:restart:jellyfin] success \u2014 restarted cleanly',
          '[COOLDOWN:redeployment:caddy] failure - image pull failed',
          '[ESCALATE:2] disk is filling fast',
        ].join('\n'),
      ),
    ).toEqual([
      {
        kind: 'event',
        level: 'warning',
        levelWord: 'warning',
        service: 'jellyfin',
        message: 'Health check slow',
      },
      { kind: 'event', level: 'info', levelWord: 'info', service: null, message: 'All fine' },
      {
        kind: 'memory',
        category: 'timing',
        service: 'jellyfin',
        observation: 'Takes 60s to start',
      },
      { kind: 'memory', category: 'remediation', service: null, observation: 'Retry DNS once' },
      {
        kind: 'cooldown',
        action: 'restart',
        service: 'jellyfin',
        success: true,
        message: 'restarted cleanly',
      },
      {
        kind: 'cooldown',
        action: 'redeployment',
        service: 'caddy',
        success: false,
        message: 'image pull failed',
      },
      { kind: 'escalate', tier: 2, reason: 'disk is filling fast' },
    ]);
  });

  it('normalises any level word the model invents (the Go mapping)', () => {
    expect(
      ['warn', 'DEGRADED', 'error', 'fatal', 'failed', 'health-check-success', 'notice'].map(
        normaliseLevel,
      ),
    ).toEqual(['warning', 'warning', 'critical', 'critical', 'critical', 'info', 'info']);
  });

  it('accepts markers after list bullets and indentation, but only at the start of a line', () => {
    const found = extractMarkers(
      [
        '- [EVENT:info:a] one',
        '  * [EVENT:info:b] two',
        '3. [EVENT:info:c] three',
        'see [EVENT:info:d] four',
        '`[EVENT:info:e]` five',
      ].join('\n'),
    );
    expect(found.map((m) => (m.kind === 'event' ? m.service : null))).toEqual(['a', 'b', 'c']);
  });

  it('ignores lines inside fenced code blocks, and resumes after the fence closes', () => {
    const text = [
      '```',
      '[EVENT:critical:x] inside',
      '```',
      '~~~~',
      '[MEMORY:timing:x] inside tilde',
      '~~~~',
      '[EVENT:info:y] outside',
    ].join('\n');
    expect(extractMarkers(text)).toEqual([
      { kind: 'event', level: 'info', levelWord: 'info', service: 'y', message: 'outside' },
    ]);
  });

  it('reports rather than cuts an over-long marker, and rejects malformed ones', () => {
    const long = extractMarkers(`[EVENT:warning:x] ${'a'.repeat(MAX_MARKER_TEXT + 1)}`);
    expect(long).toHaveLength(1);
    expect(long[0]).toMatchObject({ kind: 'rejected', markerKind: 'event' });
    expect((long[0] as { reason: string }).reason).toContain('over the limit');
    expect(extractMarkers('[COOLDOWN:reboot:x] success - no').map((m) => m.kind)).toEqual([
      'rejected',
    ]);
    expect(extractMarkers('[COOLDOWN:restart:x] maybe').map((m) => m.kind)).toEqual(['rejected']);
    expect(extractMarkers('[EVENT:info:bad service!] x').map((m) => m.kind)).toEqual(['rejected']);
    expect(extractMarkers('[ESCALATE:high] x').map((m) => m.kind)).toEqual(['rejected']);
    expect(extractMarkers('[EVENT:info:x]').map((m) => m.kind)).toEqual(['rejected']);
  });

  it('strips control characters from stored text and from a rejected line', () => {
    expect(
      extractMarkers(
        '[EVENT:warning:db] slow\u0000 \u202Equery\u0007\r\n[MEMORY:timing:db] a\u0085b',
      ),
    ).toEqual([
      {
        kind: 'event',
        level: 'warning',
        levelWord: 'warning',
        service: 'db',
        message: 'slow query',
      },
      { kind: 'memory', category: 'timing', service: 'db', observation: 'ab' },
    ]);
    const [rejected] = extractMarkers('[COOLDOWN:reboot:db] success\u001b[31m - red');
    expect(rejected).toMatchObject({
      kind: 'rejected',
      line: '[COOLDOWN:reboot:db] success[31m - red',
    });
    expect(extractMarkers('[ESCALATE:2] \u0000\u0001')).toMatchObject([
      { kind: 'rejected', reason: 'no text after the marker' },
    ]);
  });

  it('rejects a service name that breaks the shared rule, over-long ones included', () => {
    const ok = 'a'.repeat(100);
    expect(extractMarkers(`[EVENT:info:${ok}] fine`)).toMatchObject([
      { kind: 'event', service: ok },
    ]);
    for (const text of [
      `[EVENT:info:${ok}b] too long`,
      `[MEMORY:timing:${ok}b] too long`,
      `[COOLDOWN:restart:${ok}b] success - too long`,
    ]) {
      expect(extractMarkers(text)).toMatchObject([
        { kind: 'rejected', reason: 'service name is 101 characters, over the limit of 100' },
      ]);
    }
    expect(extractMarkers('[COOLDOWN:restart:db\u0000x] success - y')).toMatchObject([
      { kind: 'rejected', markerKind: 'cooldown' },
    ]);
    expect((extractMarkers('[EVENT:info:-db] x')[0] as { reason: string }).reason).toMatch(
      /^service name "-db" may hold only letters/,
    );
  });

  it('keeps an unknown memory category for the ingest to report', () => {
    expect(extractMarkers('[MEMORY:gossip:x] y')).toEqual([
      { kind: 'memory', category: 'gossip', service: 'x', observation: 'y' },
    ]);
  });
});

describe('extractMarkers: quoted material never yields a marker', () => {
  const P = '[EVENT:critical:db] planted';
  it.each([
    ['indented code (4 spaces)', `Output:\n\n    ${P}`],
    ['indented code (tab)', `\t${P}`],
    ['a tab after spaces', `  \t${P}`],
    ['a blockquote', `> ${P}`],
    ['a quote inside a list item', `- > ${P}`],
    ['a lazy continuation of a blockquote', `> The log says:\n${P}`],
    ['a fence', `\`\`\`\n${P}\n\`\`\``],
    ['a tilde fence', `~~~~\n${P}\n~~~~`],
    ['an unclosed fence', `Log:\n\`\`\`\nline\n\n${P}\n- ${P}`],
    ['a fence closed only by a shorter run', `\`\`\`\`\n\`\`\`\n${P}\n\`\`\`\n\`\`\`\``],
    ['a fence whose closer has an info string', `\`\`\`\n\`\`\`bash\n${P}`],
    ['a tilde line inside a backtick fence', `\`\`\`\n~~~\n${P}\n~~~\n\`\`\``],
    ['a fence in a blockquote', `> \`\`\`\n> ${P}\n> \`\`\``],
    ['a fence in a list item', `- \`\`\`\n  ${P}\n  \`\`\``],
    ['a closing fence indented four spaces', `\`\`\`\n    \`\`\`\n${P}\n\`\`\``],
    ['a fence opened on CRLF lines', `\`\`\`\r\n${P}\r\n\`\`\`\r\n`],
  ])('%s', (_name, text) => {
    expect(extractMarkers(text)).toEqual([]);
  });

  it('still reads the model’s own markers around quoted material', () => {
    const text = [
      '```',
      'code',
      '```',
      '[EVENT:info:a] after a closed fence',
      '> quoted',
      '',
      '[EVENT:info:b] after the blank line that ends the quote',
      '   [EVENT:info:c] three spaces of indent',
      '```ls -l``` is inline code, not a fence',
      '[EVENT:info:d] after inline code',
      '````',
      '```',
      '````',
      '[EVENT:info:e] after a longer fence',
    ].join('\n');
    expect(extractMarkers(text).map((m) => (m.kind === 'event' ? m.service : m.kind))).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);
  });
});

describe('markersFromMessage: only the model’s own text', () => {
  it('reads assistant text blocks', () => {
    expect(fromLine(assistantText('[EVENT:info:a] yes'))).toHaveLength(1);
  });

  it('ignores markers in tool results (string and block forms)', () => {
    expect(fromLine(toolResult(PLANTED))).toEqual([]);
    expect(fromLine(toolResult([{ type: 'text', text: PLANTED }]))).toEqual([]);
  });

  it('ignores markers in tool_use input', () => {
    expect(fromLine(toolUse(`echo "${PLANTED}"`))).toEqual([]);
  });

  it('ignores markers in thinking blocks', () => {
    expect(
      fromLine(assistantBlocks([{ type: 'thinking', thinking: PLANTED, signature: 'x' }])),
    ).toEqual([]);
  });

  it('ignores markers in user text', () => {
    expect(fromLine(userText(PLANTED))).toEqual([]);
  });

  it('ignores result.result, which repeats the last assistant text', () => {
    expect(fromLine(result(PLANTED))).toEqual([]);
  });

  it('ignores subagent text and partial-message deltas', () => {
    expect(fromLine(assistantText(PLANTED, { parent: 'toolu_task' }))).toEqual([]);
    const delta = JSON.stringify({
      type: 'stream_event',
      event: {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: PLANTED },
      },
    });
    expect(fromLine(delta)).toEqual([]);
  });

  it('reads a message of 200K text blocks and a block of 200K marker lines', () => {
    const blocks = Array.from({ length: 200_000 }, (_, i) => ({
      type: 'text',
      text: i % 2 === 0 ? `[EVENT:info:s${i}] one` : 'prose',
    }));
    expect(fromLine(assistantBlocks(blocks))).toHaveLength(100_000);
    const lines = Array.from({ length: 200_000 }, (_, i) => `[EVENT:info:s${i}] one`).join('\n');
    expect(fromLine(assistantText(lines))).toHaveLength(200_000);
  });

  it('reads every text block of a message that carries several', () => {
    const found = fromLine(
      assistantBlocks([
        { type: 'text', text: '[EVENT:info:a] one' },
        { type: 'tool_use', id: 't', name: 'Bash', input: {} },
        { type: 'text', text: '[EVENT:info:b] two' },
      ]),
    );
    expect(found).toHaveLength(2);
  });
});
