/**
 * The marker extractor reads markers exactly where the dashboard's renderer (markdown-it, with
 * the dashboard's options) shows the model's prose: never in a blockquote, a fence or an indented
 * code block, wherever those start and end.
 */
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';

import { extractMarkers } from '../../src/stream/markers.js';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
const MARKER = /^ {0,3}(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?\[EVENT:info:(\w+)\]/;

/** The services of the marker lines markdown-it renders as prose (paragraphs, headings, tables). */
function renderedMarkers(text: string): string[] {
  const lines = text.split(/\r\n?|\n/);
  const quoted = new Set<number>();
  const prose = new Set<number>();
  for (const token of md.parse(text, {})) {
    if (!token.map) continue;
    const [from, to] = token.map;
    const into = ['fence', 'code_block', 'blockquote_open'].includes(token.type)
      ? quoted
      : ['paragraph_open', 'heading_open', 'tr_open'].includes(token.type)
        ? prose
        : null;
    for (let line = from; into && line < to; line += 1) into.add(line);
  }
  return lines.flatMap((line, i) => {
    const m = prose.has(i) && !quoted.has(i) ? MARKER.exec(line) : null;
    return m ? [m[1]!] : [];
  });
}

const extracted = (text: string) =>
  extractMarkers(text).map((m) => (m.kind === 'event' ? m.service : m.kind));

const F = '```';
const CASES: [string, string, string[]][] = [
  // Fences
  ['a fence', `${F}\n[EVENT:info:a] x\n${F}\n[EVENT:info:b] x`, ['b']],
  [
    'a closing fence indented four spaces is content',
    `${F}\nlog:\n    ${F}\n[EVENT:info:a] x\n[MEMORY:remediation] y\n${F}\n[EVENT:info:b] x`,
    ['b'],
  ],
  ['a closing fence indented three spaces closes', `${F}\n   ${F}\n[EVENT:info:a] x`, ['a']],
  ['a closing fence indented by a tab is content', `${F}\n\t${F}\n[EVENT:info:a] x`, []],
  ['a closer with text after it is content', `${F}\n${F} x\n[EVENT:info:a] x\n${F}`, []],
  ['a shorter closer is content', `~~~~\n~~~\n[EVENT:info:a] x\n~~~~\n[EVENT:info:b] x`, ['b']],
  ['the other fence character is content', `${F}\n~~~\n[EVENT:info:a] x\n${F}`, []],
  ['fences do not nest', `${F}text\n${F}sh\n[EVENT:info:a] x\n${F}\n[EVENT:info:b] x`, ['b']],
  ['a fence opened by four spaces is code', `    ${F}\n${F}\n[EVENT:info:a] x\n${F}`, []],
  ['an unclosed fence hides the rest', `${F}\n\n[EVENT:info:a] x\n\n- [EVENT:info:b] x`, []],
  ['a backtick fence with a backtick in its info is text', `${F} a\`b\n[EVENT:info:a] x`, ['a']],
  ['a fence on CRLF lines', `${F}\r\n[EVENT:info:a] x\r\n${F}\r\n[EVENT:info:b] x`, ['b']],
  ['a fence after a lone CR', `text\r${F}\n[EVENT:info:a] x`, []],
  // Fences in containers
  ['a fence in a list item', `- ${F}\n  [EVENT:info:a] x\n  ${F}\n[EVENT:info:b] x`, ['b']],
  ['a list fence ends with its item', `- ${F}\n[EVENT:info:a] x\n  ${F}\n[EVENT:info:b] x`, ['a']],
  ['a fence indented in a list item', `1. Output:\n    ${F}\n[EVENT:info:a] x\n    ${F}`, ['a']],
  ['a list fence closed five spaces in', `- ${F}\n  x\n     ${F}\n[EVENT:info:a] x`, ['a']],
  ['a list fence with a six-space closer', `- ${F}\n  x\n      ${F}\n  [EVENT:info:a] x`, []],
  ['a fence in a blockquote', `> ${F}\n> [EVENT:info:a] x\n> ${F}\n\n[EVENT:info:b] x`, ['b']],
  [
    'a quote ended by a fence opens one',
    `> a\n${F}\n\n[EVENT:info:a] x\n${F}\n[EVENT:info:b] x`,
    ['b'],
  ],
  ['a quoted fence ends with the quote', `> ${F}\n> x\n\n[EVENT:info:a] x`, ['a']],
  // Blockquotes
  ['a blockquote', `> [EVENT:info:a] x\n\n[EVENT:info:b] x`, ['b']],
  ['a lazy line of a blockquote', `> The log says:\n[EVENT:info:a] x`, []],
  ['a quoted fence takes no lazy line', `> ${F}\n[EVENT:info:a] x`, ['a']],
  ['a quoted paragraph takes a lazy line', `> a\n> > b\n[EVENT:info:a] x`, []],
  ['a quote in a list item', `- > [EVENT:info:a] x\n- [EVENT:info:b] x`, ['b']],
  ['an empty quote line ends laziness', `> a\n>\n[EVENT:info:a] x`, ['a']],
  ['a list item ends a quote', `> a\n- [EVENT:info:a] x`, ['a']],
  ['a quote marker after deep indentation', `> a\n        > [EVENT:info:a] x`, []],
  // Indented code
  ['indented code', `Output:\n\n    [EVENT:info:a] x\n\n[EVENT:info:b] x`, ['b']],
  ['indented code by a tab', `\t[EVENT:info:a] x`, []],
  ['indented code cannot interrupt a paragraph', `text\n    [EVENT:info:a] x`, []],
  ['code in a list item', `- a\n\n      [EVENT:info:a] x\n- [EVENT:info:b] x`, ['b']],
  // The model's own prose
  [
    'markers around quoted material',
    `- [EVENT:info:a] x\n  * [EVENT:info:b] x\n3. [EVENT:info:c] x\n   [EVENT:info:d] x\n${F}ls${F} inline\n[EVENT:info:e] x`,
    ['a', 'b', 'c', 'd', 'e'],
  ],
  ['a table', `a | b\n--|--\n[EVENT:info:a] x\n\n[EVENT:info:b] x`, ['a', 'b']],
  ['a setext heading', `text\n===\n2. ${F}\n   [EVENT:info:a] x`, []],
];

describe('markers where the dashboard shows prose (markdown-it as the reference)', () => {
  it.each(CASES)('%s', (_name, text, expected) => {
    expect(renderedMarkers(text)).toEqual(expected);
    expect(extracted(text)).toEqual(expected);
  });

  it('agrees with markdown-it on 6000 generated texts of fences, quotes, lists and code', () => {
    const pieces = [
      '',
      '',
      'text',
      '```',
      '```',
      '~~~',
      '````',
      '```sh',
      '   ```',
      '    ```',
      '  ```',
      '- ```',
      '> ```',
      '1. ```',
      '\t```',
      '> quote',
      '>',
      '- item',
      '2. item',
      '# heading',
      '---',
      '    code',
      '  text',
      'a | b',
      '--|--',
      '===',
      '> - ```',
      '>\t```',
      '> > x',
      '- > ```',
      '  > ```',
      '>     code',
      '> 1. x',
      '  - ```',
    ];
    const prefixes = ['', ' ', '   ', '    ', '- ', '1. ', '> ', '  - ', '\t', '  ', '> > ', '>'];
    let seed = 20240611;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const mismatches: string[] = [];
    for (let doc = 0; doc < 6000; doc += 1) {
      const count = 1 + next(9);
      const lines = Array.from({ length: count }, (_, i) =>
        next(3) === 0
          ? `${prefixes[next(prefixes.length)]}[EVENT:info:s${i}] x`
          : pieces[next(pieces.length)]!,
      );
      const text = lines.join('\n');
      if (JSON.stringify(extracted(text)) !== JSON.stringify(renderedMarkers(text)))
        mismatches.push(text);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });
});
