/**
 * What is wrong with a manifest, a runbook document, an mcp.json, a `.claude-ops` folder, a
 * repository or a whole repos folder: every issue discovery would report, with its line. The
 * kind of thing is told by its name and what it holds.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { AppError } from '../errors.js';
import { discoverRunbooks } from './discover.js';
import { readDocFolder } from './doc-folder.js';
import { parseDocument } from './document.js';
import { parseManifest } from './manifest.js';
import { parseMcpFile } from './mcp-file.js';
import { EXTENSION_DIR, MANIFEST_FILE, readRepository } from './repository.js';
import { DOC_KINDS, type DocKind, type Issue } from './types.js';

const isKind = (name: string): name is DocKind => (DOC_KINDS as readonly string[]).includes(name);

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function lintFile(path: string): Promise<Issue[]> {
  const text = await readFile(path, 'utf8');
  const name = basename(path);
  const folder = basename(dirname(path));
  if (name.toLowerCase() === 'mcp.json') return parseMcpFile(text, { source: '', path }).issues;
  if (isKind(folder) && /\.md$/i.test(name)) {
    return parseDocument(text, { kind: folder, source: '', path }).issues;
  }
  // Any other Markdown file is read as a manifest, whatever it is called.
  if (/\.md$/i.test(name)) return parseManifest(text, path).issues;
  throw new AppError(
    'invalid_input',
    `${path}: expected ${MANIFEST_FILE}, a check, playbook or skill (.md) or mcp.json`,
  );
}

async function lintExtensionDir(dir: string): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const kind of DOC_KINDS)
    issues.push(...(await readDocFolder(join(dir, kind), kind, '')).issues);
  const mcp = join(dir, 'mcp.json');
  if (await exists(mcp)) issues.push(...(await lintFile(mcp)));
  return issues;
}

export async function lintRunbooks(path: string): Promise<Issue[]> {
  const s = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw new AppError('input_unreadable', `${path}: ${err.code ?? err.message}`, { cause: err });
  });
  if (!s.isDirectory()) return lintFile(path);
  const name = basename(path);
  if (name === EXTENSION_DIR) return lintExtensionDir(path);
  if (isKind(name)) return (await readDocFolder(path, name, '')).issues;
  if ((await exists(join(path, MANIFEST_FILE))) || (await exists(join(path, EXTENSION_DIR)))) {
    return (await readRepository(path)).issues;
  }
  // A folder of repositories: everything discovery would warn about, the built-in library aside.
  const found = await discoverRunbooks({ reposDir: path });
  return found.warnings.filter((w) => w.file.startsWith(path));
}

/** `file:line: message`, or `file: message` for the file as a whole. */
export function formatIssue(i: Issue): string {
  return i.line > 0 ? `${i.file}:${i.line}: ${i.message}` : `${i.file}: ${i.message}`;
}
