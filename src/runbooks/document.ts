/**
 * One check, playbook or skill: its title, when it applies (its "When ..." section, else its
 * front matter's `description:`, else its first paragraph) and, for playbooks and skills, the lowest tier that may follow it
 * (`**Minimum tier**: 2`, or Claude Ops's `**Tier**: 2 (Sonnet) minimum`).
 */
import { basename } from 'node:path';

import { frontMatter } from './front-matter.js';
import { firstParagraph, outline } from './markdown.js';
import type { DocKind, Issue, RunbookDoc, Tier } from './types.js';

/** Without a stated tier: checks are for every tier, playbooks change things (tier 2 up). */
export const DEFAULT_MIN_TIER: Record<DocKind, Tier> = { checks: 1, playbooks: 2, skills: 1 };

const TIER_LINE = /^\s*(?:[-*]\s*)?\**(?:minimum\s+)?tier\**\s*:\**\s*(\S+)/i;

export function parseDocument(
  text: string,
  meta: { kind: DocKind; source: string; path: string },
): { doc: RunbookDoc; issues: Issue[] } {
  const issues: Issue[] = [];
  const at = (line: number, message: string) => issues.push({ file: meta.path, line, message });
  const front = frontMatter(text);
  if (front.problem) at(front.problem.line, front.problem.message);
  const o = outline(front.body);
  const name = basename(meta.path).replace(/\.md$/i, '');
  let minTier: Tier | null = null;
  let tierLine = 0;
  for (const { text: t, line } of [...o.intro, ...o.sections.flatMap((s) => s.lines)]) {
    const m = TIER_LINE.exec(t);
    if (!m) continue;
    const n = /^([1-3])\b/.exec(m[1]!.replace(/\*/g, ''))?.[1];
    if (n && minTier === null) {
      minTier = Number(n) as Tier;
      tierLine = line;
    } else if (!n) at(line, `"${m[1]}" is not a tier: write 1, 2 or 3`);
  }
  if (minTier !== null && meta.kind === 'checks') {
    at(1, 'a check is for every tier: its tier line is ignored');
    minTier = null;
  }
  const when = o.sections.find((s) => /^when\b/i.test(s.heading.trim()));
  const applies =
    (when && firstParagraph(when.lines)) ?? front.description ?? firstParagraph(o.intro);
  if (text.trim() === '') at(1, 'the document is empty');
  else {
    if (!o.title) at(1, 'no title: a document starts with a "# " heading');
    if (!applies) at(when?.line ?? 1, 'it does not say when it applies ("## When it applies")');
  }
  if (meta.kind === 'playbooks' && minTier === null && text.trim() !== '') {
    at(1, `no minimum tier ("**Minimum tier**: 2"): ${DEFAULT_MIN_TIER.playbooks} is assumed`);
  }
  const doc: RunbookDoc = {
    kind: meta.kind,
    name,
    title: o.title?.text ?? name,
    applies: applies ?? '',
    minTier: minTier ?? DEFAULT_MIN_TIER[meta.kind],
    minTierSource: minTier === null ? null : { file: meta.path, line: tierLine },
    source: meta.source,
    path: meta.path,
  };
  return { doc, issues };
}
