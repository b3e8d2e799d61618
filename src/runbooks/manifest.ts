/**
 * A repository's CLAUDE-OPS.md, read as the Claude Ops format has it: a title and a paragraph on
 * what the repository is, then `## Kind`, `## Capabilities` (`- **name**: what it allows`) and
 * `## Rules` (one per list item). Every other section is kept as written. What does not fit the
 * format is an issue with its line; the rest is still read.
 */
import { firstParagraph, listItems, outline, type Section } from './markdown.js';
import { enforcedRule } from './rules.js';
import type { Issue, Manifest, Tier } from './types.js';

const KNOWN = ['kind', 'capabilities', 'rules'] as const;

function sectionText(s: Section): string {
  return s.lines
    .map((l) => l.text)
    .join('\n')
    .trim();
}

/** The tier a rule about playbooks asks for: "Playbook runs require Opus tier (Tier 3)". */
function playbookTier(rule: string): Tier | null {
  if (!/playbook/i.test(rule)) return null;
  const n = /\btier\s*([1-3])\b/i.exec(rule)?.[1];
  if (n) return Number(n) as Tier;
  if (/\bopus\b/i.test(rule)) return 3;
  if (/\bsonnet\b/i.test(rule)) return 2;
  return null;
}

function capability(text: string): { name: string; description: string } | null {
  const m =
    /^(?:\*\*|__)(.+?)(?:\*\*|__)\s*[:\u2013\u2014-]?\s*(.+)$/.exec(text) ??
    /^`(.+?)`\s*[:\u2013\u2014-]?\s*(.+)$/.exec(text) ??
    /^([\w .-]+?):\s+(.+)$/.exec(text);
  return m ? { name: m[1]!.trim().replace(/:$/, ''), description: m[2]!.trim() } : null;
}

export function parseManifest(text: string, path: string): { manifest: Manifest; issues: Issue[] } {
  const issues: Issue[] = [];
  const at = (line: number, message: string) => issues.push({ file: path, line, message });
  const doc = outline(text);
  const manifest: Manifest = {
    path,
    title: doc.title?.text ?? null,
    summary: firstParagraph(doc.intro),
    kind: null,
    capabilities: [],
    rules: [],
    playbookMinTier: null,
    playbookTierLine: null,
    enforced: [],
    sections: [],
  };
  if (text.trim() === '') {
    at(1, 'the manifest is empty');
    return { manifest, issues };
  }
  if (!doc.title) at(1, 'no title: a manifest starts with a "# " heading');
  const seen = new Map<string, number>();
  for (const s of doc.sections) {
    const key = s.heading.trim().toLowerCase() as (typeof KNOWN)[number];
    if (s.level !== 2 || !KNOWN.includes(key)) {
      manifest.sections.push({ heading: s.heading, text: sectionText(s) });
      continue;
    }
    if (seen.has(key)) {
      at(s.line, `a second "## ${s.heading}" section (the first is on line ${seen.get(key)})`);
      continue;
    }
    seen.set(key, s.line);
    if (key === 'kind') {
      manifest.kind = firstParagraph(s.lines);
      if (!manifest.kind) at(s.line, 'Kind is empty: say what the repository is');
    } else if (key === 'capabilities') {
      for (const item of listItems(s.lines)) {
        const c = capability(item.text);
        if (c) manifest.capabilities.push(c);
        else at(item.line, 'a capability reads "- **name**: what it allows"');
      }
      if (listItems(s.lines).length === 0) at(s.line, 'Capabilities lists nothing');
    } else {
      const items = listItems(s.lines);
      if (items.length === 0 && sectionText(s) !== '') {
        at(s.line, 'write each rule as a list item ("- Never modify files here")');
      }
      for (const item of items) {
        manifest.rules.push(item.text);
        const tooHigh = /\btier\s*([4-9]|\d{2,})\b/i.exec(item.text);
        if (tooHigh) at(item.line, `there is no tier ${tooHigh[1]}: tiers are 1 to 3`);
        const enforced = enforcedRule(item.text, item.line);
        if (enforced) manifest.enforced.push(enforced);
        // "`ansible-playbook` requires tier 3" is about a command, not the runbook playbooks.
        const tier = enforced?.kind === 'tier' ? null : playbookTier(item.text);
        if (tier && tier > (manifest.playbookMinTier ?? 0)) {
          manifest.playbookMinTier = tier;
          manifest.playbookTierLine = item.line;
        }
      }
    }
  }
  if (!seen.has('kind')) {
    at(1, 'no "## Kind" section: say what the repository is (Ansible infrastructure, Helm charts)');
  }
  return { manifest, issues };
}
