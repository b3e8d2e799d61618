/**
 * Discovery: the built-in library, then every repository of the repos folder (each subfolder, in
 * name order). It reads the disk afresh on every call, so a repository mounted since the last
 * chain is picked up without a restart. A repository's document replaces the built-in one of the
 * same kind and name; two repositories' documents of the same name are both kept.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { errorText, readDocFolder } from './doc-folder.js';
import { withRepositoryServers } from './mcp-merge.js';
import { readRepository } from './repository.js';
import { DOC_KINDS, type Issue, type Runbooks, type RunbookDoc } from './types.js';

/** The built-in library shipped in the package (`runbooks/` at its root). */
export const LIBRARY_DIR = fileURLToPath(new URL('../../runbooks', import.meta.url));
export const BUILT_IN = 'built-in';

export interface DiscoverOptions {
  reposDir: string | null;
  libraryDir?: string;
}

/**
 * The folders of the repos folder (not hidden ones, nor a volume's lost+found); a folder that
 * cannot be read is an issue.
 */
export async function repositoryFolders(reposDir: string, issues: Issue[]): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(reposDir))
      .filter((n) => !n.startsWith('.') && n !== 'lost+found')
      .sort();
  } catch (err) {
    issues.push({ file: reposDir, line: 0, message: `cannot be read (${errorText(err)})` });
    return [];
  }
  const folders: string[] = [];
  for (const name of names) {
    // stat, not the entry's type: a repository is often a symbolic link to a checkout.
    const s = await stat(join(reposDir, name)).catch(() => null);
    if (s?.isDirectory()) folders.push(join(reposDir, name));
  }
  return folders;
}

export async function discoverRunbooks(opts: DiscoverOptions): Promise<Runbooks> {
  const libraryDir = opts.libraryDir ?? LIBRARY_DIR;
  const result: Runbooks = {
    reposDir: opts.reposDir,
    repositories: [],
    checks: [],
    playbooks: [],
    skills: [],
    mcpServers: [],
    warnings: [],
  };
  const builtIn: RunbookDoc[] = [];
  for (const kind of DOC_KINDS) {
    const found = await readDocFolder(join(libraryDir, kind), kind, BUILT_IN);
    builtIn.push(...found.docs);
    result.warnings.push(...found.issues);
  }
  const operator: RunbookDoc[] = [];
  for (const path of opts.reposDir ? await repositoryFolders(opts.reposDir, result.warnings) : []) {
    try {
      const read = await readRepository(path);
      result.repositories.push(read.repository);
      operator.push(...read.docs);
      result.mcpServers.push(...read.servers);
      result.warnings.push(...read.issues);
    } catch (err) {
      result.warnings.push({ file: path, line: 0, message: `cannot be read (${errorText(err)})` });
    }
  }
  const replaced = new Set(operator.map((d) => `${d.kind}/${d.name}`));
  for (const doc of [...builtIn.filter((d) => !replaced.has(`${d.kind}/${d.name}`)), ...operator]) {
    result[doc.kind].push(doc);
  }
  // Two repositories' servers of one name: the later one is used.
  result.warnings.push(...withRepositoryServers({}, result.mcpServers).issues);
  for (const kind of DOC_KINDS) {
    result[kind].sort((a, b) => a.name.localeCompare(b.name) || a.source.localeCompare(b.source));
  }
  return result;
}
