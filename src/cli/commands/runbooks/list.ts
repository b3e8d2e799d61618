/**
 * `watchkeeper runbooks list [--tier N] [--json]`: the repositories (with their manifests), the
 * checks, playbooks, skills and MCP servers sessions are told about, each with where it came
 * from, and what discovery could not read. --tier: as a session of that tier gets them.
 */
import { loadConfig } from '../../../config/index.js';
import {
  allowedAt,
  discoverRunbooks,
  formatIssue,
  type RunbookDoc,
  runbooksJson,
  type Runbooks,
  type Tier,
} from '../../../runbooks/index.js';
import { flag, parse, str, toInt } from '../../args.js';
import { clip, json, table } from '../../format.js';
import type { CliIo } from '../../io.js';

function docsTable(title: string, docs: RunbookDoc[], withTier: boolean): string {
  if (docs.length === 0) return `${title}: none\n`;
  const headers = ['NAME', ...(withTier ? ['TIER'] : []), 'SOURCE', 'WHEN IT APPLIES'];
  const rows = docs.map((d) => [
    d.name,
    ...(withTier ? [`${d.minTier}+`] : []),
    d.source,
    clip(d.applies, 70),
  ]);
  return `${title}\n${table(headers, rows)}`;
}

function listText(r: Runbooks): string {
  const repos =
    r.repositories.length === 0
      ? `Repositories: none${r.reposDir ? ` in ${r.reposDir}` : ' (WATCHKEEPER_REPOS_DIR is not set)'}\n`
      : `Repositories in ${r.reposDir}\n${table(
          ['NAME', 'KIND', 'MANIFEST'],
          r.repositories.map((x) => [
            x.name,
            clip(x.manifest?.kind ?? '-', 40),
            x.manifest ? x.manifest.path : `none (README: ${x.readme ? 'yes' : 'no'})`,
          ]),
        )}`;
  const servers =
    r.mcpServers.length === 0
      ? 'MCP servers: none\n'
      : `MCP servers\n${table(
          ['NAME', 'PATH'],
          r.mcpServers.map((s) => [s.name, s.path]),
        )}`;
  const warnings =
    r.warnings.length === 0
      ? ''
      : `\nWarnings\n${r.warnings.map((w) => `${formatIssue(w)}\n`).join('')}`;
  return [
    repos,
    docsTable('Checks', r.checks, false),
    docsTable('Playbooks', r.playbooks, true),
    docsTable('Skills', r.skills, true),
    servers,
  ]
    .join('\n')
    .concat(warnings);
}

export async function runbooksListCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { tier: { type: 'string' }, json: { type: 'boolean' } });
  const tierText = str(p, 'tier');
  const tier = tierText === undefined ? null : (toInt('--tier', tierText, 1, 3) as Tier);
  const config = loadConfig(io.env);
  const found = await discoverRunbooks({ reposDir: config.runbooks.reposDir });
  const shown = tier === null ? found : allowedAt(found, tier);
  io.stdout(flag(p, 'json') ? json(runbooksJson(shown)) : listText(shown));
  return 0;
}
