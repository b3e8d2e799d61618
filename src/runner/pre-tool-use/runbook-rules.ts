/**
 * The runbook rules that hold, not only read: a command family's minimum tier ("`helm upgrade`
 * requires tier 3"), a read-only repository (no Edit, Write or shell write inside it), and a
 * playbook's or skill's minimum tier (reading it, with the Read tool or `cat`). A refusal quotes
 * the rule and the file and line it comes from.
 */
import { resolve } from 'node:path';

import { type RepositoryRules, runbookDocAt } from '../../runbooks/enforced.js';
import { globsIntersect, literalGlob } from '../guard/glob.js';
import { literal, litWord, type Word, wordGlob, wordSource } from '../guard/words.js';
import { couldBeInside } from './rule-paths.js';
import type { RuleWatch, Seen } from './rule-watch.js';

export interface RuleContext {
  repos: readonly RepositoryRules[];
  /** The session's tier; null when not told (every tier rule then holds). */
  tier: number | null;
  /** The folder the tool call runs in (the hook payload's `cwd`). */
  cwd: string;
  libraryDir?: string;
}

const FILE_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

const shown = (argv: readonly Word[]) => {
  const text = argv.map(wordSource).join(' ');
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
};
const sessionTier = (tier: number | null) =>
  tier === null ? "this session's tier is unknown" : `this session is tier ${tier}`;
const cite = (text: string, file: string, line: number) =>
  `watchkeeper: refused: "${text}" (${file}${line > 0 ? ` line ${line}` : ''})`;

/** Whether a word could be `want` (case aside): equal, or a pattern that could expand to it. */
function couldBe(word: Word, want: string, program = false): boolean {
  const lit = literal(word);
  if (lit !== null) return (program ? lit.replace(/^.*\//, '') : lit) === want;
  const glob = wordGlob(word);
  const exact = literalGlob(want.toLowerCase());
  return (
    globsIntersect(glob, exact) ||
    (program && globsIntersect(glob, [{ t: 'star' }, ...literalGlob(`/${want.toLowerCase()}`)]))
  );
}

/** `helm upgrade` matches `helm --namespace x upgrade web ./chart`: the words in order. */
function runs(argv: readonly Word[], words: readonly string[]): boolean {
  if (!argv[0] || !couldBe(argv[0], words[0]!, true)) return false;
  let at = 1;
  for (const want of words.slice(1)) {
    while (at < argv.length && !couldBe(argv[at]!, want)) at += 1;
    if (at >= argv.length) return false;
    at += 1;
  }
  return true;
}

function tierRefusal(commands: readonly Word[][], ctx: RuleContext): string | null {
  for (const repo of ctx.repos) {
    for (const rule of repo.rules) {
      if (rule.kind !== 'tier' || (ctx.tier !== null && ctx.tier >= rule.tier)) continue;
      for (const argv of commands) {
        const words = rule.commands.find((w) => runs(argv, w));
        if (!words) continue;
        return (
          `${cite(rule.text, repo.manifest!.path, rule.line)}; ${sessionTier(ctx.tier)}. ` +
          `\`${shown(argv)}\` runs \`${words.join(' ')}\`. Hand it to a higher tier or report ` +
          'that a human is needed.'
        );
      }
    }
  }
  return null;
}

function writeRefusal(writes: readonly Seen[], what: string, ctx: RuleContext): string | null {
  for (const repo of ctx.repos) {
    const rule = repo.rules.find((r) => r.kind === 'read-only');
    if (!rule) continue;
    const hit = writes.find((w) => repo.paths.some((p) => couldBeInside(w, p)));
    if (!hit) continue;
    return (
      `${cite(rule.text, repo.manifest!.path, rule.line)}: ${what} writes ` +
      `\`${wordSource(hit.word)}\`, which could be inside ${repo.paths[0]}. ` +
      'Report the change you would make instead.'
    );
  }
  return null;
}

async function docRefusal(paths: readonly string[], ctx: RuleContext): Promise<string | null> {
  for (const path of paths) {
    if (!/\/(playbooks|skills)\/[^/]+\.md$/i.test(path)) continue;
    const doc = await runbookDocAt(path, ctx.repos, ctx.libraryDir);
    if (!doc || (ctx.tier !== null && ctx.tier >= doc.minTier)) continue;
    const src = doc.minTierSource;
    const where = src ? `${src.file}${src.line > 0 ? ` line ${src.line}` : ''}` : doc.path;
    const what = doc.kind === 'playbooks' ? 'playbook' : 'skill';
    return (
      `watchkeeper: refused: the ${what} "${doc.name}" requires tier ${doc.minTier} (${where}); ` +
      `${sessionTier(ctx.tier)}. Hand it to a higher tier or report that a human is needed.`
    );
  }
  return null;
}

/** The refusal a runbook rule makes of this tool call, or null. */
export async function runbookRefusal(
  payload: unknown,
  ctx: RuleContext,
  watch: RuleWatch | null,
): Promise<string | null> {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as {
    tool_name?: unknown;
    tool_input?: Record<string, unknown>;
  };
  const input = p.tool_input ?? {};
  const file = [input.file_path, input.notebook_path].find((f) => typeof f === 'string');
  if (typeof p.tool_name === 'string' && FILE_TOOLS.has(p.tool_name) && typeof file === 'string') {
    return writeRefusal([{ word: litWord(file), cwd: ctx.cwd }], p.tool_name, ctx);
  }
  if (p.tool_name === 'Read' && typeof file === 'string') {
    return docRefusal([resolve(ctx.cwd, file)], ctx);
  }
  if (!watch) return null;
  return (
    tierRefusal(watch.commands, ctx) ??
    writeRefusal(watch.writes, 'the command', ctx) ??
    (await docRefusal(
      watch.paths.flatMap((s) => (s.cwd === null ? [] : [resolve(s.cwd, literal(s.word)!)])),
      ctx,
    ))
  );
}
