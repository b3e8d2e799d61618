import { describe, expect, it } from 'vitest';

import { renderMarkdown } from '../../src/web/markdown.js';
import { markerSegments } from '../../src/web/marker-text.js';

/** Every attribute name on every tag of an HTML fragment (the fragment is ours, well-formed). */
function attributeNames(html: string): string[] {
  const names: string[] = [];
  for (const tag of html.matchAll(/<[a-z][a-z0-9]*((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*\/?>/gi)) {
    for (const attr of tag[1]!.matchAll(/\s+([a-z-]+)(?:="[^"]*")?/gi)) names.push(attr[1]!);
  }
  return names;
}

describe('renderMarkdown', () => {
  it('renders ordinary Markdown', () => {
    const html = renderMarkdown('# Report\n\n**All good**, see `docker ps`.\n\n- one\n- two\n');
    expect(html).toContain('<h1>Report</h1>');
    expect(html).toContain('<strong>All good</strong>');
    expect(html).toContain('<code>docker ps</code>');
    expect(html).toContain('<li>two</li>');
  });

  it('turns marker tags at the start of a line into badges', () => {
    const html = renderMarkdown(
      'Checking jellyfin.\n[EVENT:warning:jellyfin] Health check slow\n\n' +
        '- [MEMORY:timing:jellyfin] takes *60s*\n- [EVENT:error:db] down\n\n' +
        'not a marker: [EVENT:info:x] mid-line\n',
    );
    expect(html).toContain(
      '<span class="marker warning">[EVENT:warning:jellyfin]</span> Health check slow',
    );
    expect(html).toContain('<span class="marker memory">[MEMORY:timing:jellyfin]</span> takes');
    expect(html).toContain('<span class="marker critical">[EVENT:error:db]</span>');
    expect(html).toContain('not a marker: [EVENT:info:x] mid-line');
  });

  it('keeps each marker on a line of its own, as the agent wrote it', () => {
    const html = renderMarkdown(
      'All checked.\n[EVENT:info:caddy] healthy\n[EVENT:warning:db] slow\n[MEMORY:timing:db] 60s\nDone.\n',
    );
    expect(html).toBe(
      '<p>All checked.<br>\n<span class="marker info">[EVENT:info:caddy]</span> healthy<br>\n' +
        '<span class="marker warning">[EVENT:warning:db]</span> slow<br>\n' +
        '<span class="marker memory">[MEMORY:timing:db]</span> 60s<br>\nDone.</p>\n',
    );
    // Ordinary prose keeps Markdown's soft line breaks.
    expect(renderMarkdown('one\ntwo\n')).toBe('<p>one\ntwo</p>\n');
  });

  it('leaves markers in code alone', () => {
    const html = renderMarkdown('```\n[EVENT:critical:y] fenced\n```\n\n`[EVENT:info:x]` inline\n');
    expect(html).not.toContain('class="marker');
  });

  it('keeps scripts, event handlers, javascript: links and attribute breakouts inert', () => {
    const html = renderMarkdown(
      [
        '<script>alert(1)</script>',
        '',
        '<img src=x onerror="alert(1)">',
        '',
        '[click](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [vb](vbscript:x)',
        '',
        '[ok](<https://example.com/" onmouseover="alert(1)>) [t](https://example.com "a\\" onclick=\\"x")',
        '',
        '![pixel](https://evil.example/?leak=1)',
        '',
        '[EVENT:info:a"><script>alert(2)</script>] tag breakout',
        '',
        '<a href="javascript:alert(3)">raw link</a>',
      ].join('\n'),
    );
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/<a [^>]*href="(javascript|data|vbscript):/i);
    expect(html).not.toMatch(/<(?!\/?(p|a|span)\b)[a-z]/i); // no other element was created
    expect(new Set(attributeNames(html))).toEqual(new Set(['href', 'title', 'rel', 'class']));
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(html).toContain('[click](javascript:alert(1))');
    expect(html).toContain('href="https://example.com/%22%20onmouseover=%22alert(1)"');
    expect(html).toContain('title="a&quot; onclick=&quot;x"');
    expect(html).toContain(
      '<span class="marker info">[EVENT:info:a&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;]</span>',
    );
    expect(html).toContain('rel="noopener noreferrer nofollow"');
  });
});

describe('markerSegments', () => {
  it('splits lines into text and marker runs without losing anything', () => {
    const text = 'intro\n  - [COOLDOWN:restart:web] success\n[ESCALATE:2] need more\nend';
    const segments = markerSegments(text);
    expect(segments.map((s) => s.text).join('')).toBe(text);
    expect(segments.filter((s) => s.marker)).toEqual([
      { text: '[COOLDOWN:restart:web]', marker: 'other' },
      { text: '[ESCALATE:2]', marker: 'other' },
    ]);
  });
});
