/**
 * The runbooks section of a session's system prompt, within the tier's budget (characters): the
 * manifests (kind, capabilities, rules), then an index of the checks, then the playbooks and
 * skills the tier may follow (the repositories' own before the built-in ones), each with when it
 * applies and its path. The agent reads a document in full with its Read tool. Lines are kept
 * in that order of importance; what does not fit is counted in a last line, so the section never
 * runs past the budget.
 */
import { printable } from '../text-rules.js';
import { BUILT_IN } from './discover.js';
import type { Repository, RunbookDoc, Runbooks, Tier } from './types.js';

const MAX_APPLIES = 160;
const MAX_SUMMARY = 240;
const MAX_LINE = 300;

/** A repository's line, then its rules and capabilities under it (the rules kept first). */
function repositoryLines(r: Repository): string[] {
  const m = r.manifest;
  if (!m) {
    const about = r.readme ? `README: ${printable(r.readme, MAX_SUMMARY)}` : 'no README';
    const top =
      r.listing.length > 0
        ? `; top level: ${printable(r.listing.slice(0, 15).join(', '), 300)}`
        : '';
    return [`- ${printable(r.name, 100)} (${r.path}, no CLAUDE-OPS.md): ${about}${top}`];
  }
  const about = [m.kind && printable(m.kind, 120), m.summary && printable(m.summary, MAX_SUMMARY)];
  const lines = [
    `- ${printable(r.name, 100)} (${r.path}): ${about.filter(Boolean).join('. ') || 'kind not stated'}`,
  ];
  if (m.rules.length > 0)
    lines.push(`  Rules (follow them): ${m.rules.map((x) => printable(x, MAX_LINE)).join('; ')}`);
  if (m.capabilities.length > 0) {
    lines.push(
      `  Capabilities: ${m.capabilities.map((c) => printable(`${c.name} (${c.description})`, MAX_LINE)).join('; ')}`,
    );
  }
  return lines;
}

function docLine(d: RunbookDoc): string {
  const tier = d.kind === 'checks' ? '' : ` [tier ${d.minTier}+]`;
  return `- ${printable(d.name, 100)}${tier}: ${printable(d.applies || d.title, MAX_APPLIES)} (${d.path})`;
}

/** The repositories' own documents first: when not all fit, the generic built-in ones go. */
const docLines = (docs: RunbookDoc[]) =>
  [...docs.filter((d) => d.source !== BUILT_IN), ...docs.filter((d) => d.source === BUILT_IN)].map(
    (d) => [docLine(d)],
  );

export function runbooksSection(r: Runbooks, tier: Tier, budget: number): string {
  const head = [
    '## Runbooks',
    `What the operator's repositories${r.reposDir ? ` (in ${r.reposDir})` : ''} and the built-in ` +
      'library give you. Before following a check, playbook or skill, read it in full with the ' +
      'Read tool at its path. Report what a check finds with the markers above ([HEALTH:...], ' +
      '[EVENT:...]) naming the service it found it on, or the check itself when it covers no ' +
      'one service ([HEALTH:healthy:backups]); there is no marker of its own for a check.',
  ].join('\n');
  // Each entry is a line and the lines under it, kept only below it.
  const groups: [string, string[][]][] = [
    ['### Repositories', r.repositories.map(repositoryLines)],
    ['### Checks', docLines(r.checks)],
    [`### Playbooks allowed at tier ${tier}`, docLines(r.playbooks)],
    [`### Skills allowed at tier ${tier}`, docLines(r.skills)],
  ];
  if (head.length + 100 > budget) return '';
  const out = [head];
  let used = head.length;
  let left = 0;
  const cost = (t: string) => t.length + 1;
  // Room kept for the last line, which counts what was left out.
  const fits = (n: number) => used + n + 100 <= budget;
  for (const [title, entries] of groups) {
    // A heading goes in only with at least one of its lines, a line under an entry only with
    // the entry: never a heading with nothing under it, nor rules under the wrong repository.
    const kept: string[] = [];
    let size = cost(title) + 1;
    for (const lines of entries) {
      let above = true;
      for (const line of lines) {
        above &&= fits(size + cost(line));
        if (!above) left += 1;
        else {
          kept.push(line);
          size += cost(line);
        }
      }
    }
    if (kept.length === 0) continue;
    out.push('', title, ...kept);
    used += size;
  }
  if (left > 0) {
    out.push('', `(${left} more left out for room: see the folders of the paths above.)`);
  }
  return out.join('\n');
}
