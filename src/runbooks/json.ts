/**
 * The JSON form of the runbooks (`watchkeeper runbooks list --json`): every item with its
 * `name`, its `source` (`built-in` or the repository's path) and its `path`. An MCP server's
 * definition is left out: its `env` and `args` often hold credentials.
 */
import type { Repository, RunbookDoc, Runbooks } from './types.js';

function repositoryJson(r: Repository) {
  const m = r.manifest;
  return {
    name: r.name,
    source: r.path,
    path: m?.path ?? r.path,
    kind: m?.kind ?? null,
    summary: m?.summary ?? r.readme,
    capabilities: m?.capabilities ?? [],
    rules: m?.rules ?? [],
    sections: m?.sections ?? [],
    listing: r.listing,
  };
}

function docJson(d: RunbookDoc) {
  const base = { name: d.name, source: d.source, path: d.path, title: d.title, applies: d.applies };
  return d.kind === 'checks' ? base : { ...base, minTier: d.minTier };
}

export function runbooksJson(r: Runbooks) {
  return {
    reposDir: r.reposDir,
    repositories: r.repositories.map(repositoryJson),
    checks: r.checks.map(docJson),
    playbooks: r.playbooks.map(docJson),
    skills: r.skills.map(docJson),
    mcpServers: r.mcpServers.map((s) => ({
      name: s.name,
      source: s.source,
      path: s.path,
      transport: typeof s.config.url === 'string' ? String(s.config.type ?? 'http') : 'stdio',
    })),
    warnings: r.warnings,
  };
}
