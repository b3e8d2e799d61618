/**
 * What the PreToolUse guard reads of the runbooks on every tool call, cheaply: each repository's
 * manifest alone (its checkable rules), and one playbook or skill when a call reads it. The
 * rest of discovery (documents, MCP servers) is left to the session's start.
 */
import { readFile, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

import { LIBRARY_DIR, repositoryFolders } from './discover.js';
import { parseDocument } from './document.js';
import { parseManifest } from './manifest.js';
import { MANIFEST_FILE, withFloor } from './repository.js';
import type { EnforcedRule, Manifest, RunbookDoc } from './types.js';

export interface RepositoryRules {
  name: string;
  /** The repository's folder, and where it really is when that is a symbolic link. */
  paths: string[];
  manifest: Manifest | null;
  rules: EnforcedRule[];
}

/** The repositories of the repos folder with their manifests' checkable rules. */
export async function repositoryRules(reposDir: string): Promise<RepositoryRules[]> {
  const out: RepositoryRules[] = [];
  for (const path of await repositoryFolders(reposDir, [])) {
    const file = join(path, MANIFEST_FILE);
    const text = await readFile(file, 'utf8').catch(() => null);
    const manifest = text === null ? null : parseManifest(text, file).manifest;
    const real = await realpath(path).catch(() => path);
    const paths = real === path ? [path] : [path, real];
    out.push({ name: relative(reposDir, path), paths, manifest, rules: manifest?.enforced ?? [] });
  }
  return out;
}

const DOC = /^(playbooks|skills)\/[^/]+\.md$/i;

/** The playbook or skill at `path` (absolute), with its tier as discovery gives it; else null. */
export async function runbookDocAt(
  path: string,
  repos: readonly RepositoryRules[],
  libraryDir = LIBRARY_DIR,
): Promise<RunbookDoc | null> {
  const inside = (dir: string) => {
    const rel = relative(dir, path).split(sep).join('/');
    return DOC.test(rel) ? rel : null;
  };
  let manifest: Manifest | null = null;
  let rel = inside(libraryDir);
  for (const r of repos) {
    if (rel) break;
    for (const p of r.paths) {
      rel = inside(join(p, '.claude-ops'));
      if (rel) manifest = r.manifest;
      if (rel) break;
    }
  }
  if (!rel) return null;
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return null;
  const kind = rel.split('/')[0]!.toLowerCase() as 'playbooks' | 'skills';
  const { doc } = parseDocument(text, { kind, source: '', path });
  return withFloor(doc, manifest);
}
