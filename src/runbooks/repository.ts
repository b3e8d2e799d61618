/**
 * One repository of the repos folder: its CLAUDE-OPS.md manifest (or, without one, its README's
 * first paragraph and its top-level listing), the documents of its `.claude-ops/` folder and the
 * MCP servers of `.claude-ops/mcp.json`. What cannot be read is an issue; the rest is used.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

import { errorText, readDocFolder } from './doc-folder.js';
import { parseManifest } from './manifest.js';
import { firstParagraph, outline } from './markdown.js';
import { parseMcpFile } from './mcp-file.js';
import {
  DOC_KINDS,
  type Issue,
  type Manifest,
  type McpServer,
  type Repository,
  type RunbookDoc,
} from './types.js';

export const MANIFEST_FILE = 'CLAUDE-OPS.md';
export const EXTENSION_DIR = '.claude-ops';
const MAX_LISTING = 50;
const MAX_README_CHARS = 500;

export interface RepositoryRead {
  repository: Repository;
  docs: RunbookDoc[];
  servers: McpServer[];
  issues: Issue[];
}

/** A file's text, or null when it is not there; any other failure is an issue. */
async function readOptional(path: string, issues: Issue[]): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      issues.push({ file: path, line: 0, message: `cannot be read (${errorText(err)})` });
    }
    return null;
  }
}

function readmeParagraph(text: string): string | null {
  const o = outline(text);
  const lines = [...o.intro, ...o.sections.flatMap((s) => s.lines)].filter(
    (l) => !/^\s*\[?!\[/.test(l.text),
  );
  const p = firstParagraph(lines);
  return p && p.length > MAX_README_CHARS ? `${p.slice(0, MAX_README_CHARS - 1)}…` : p;
}

/** A playbook's tier raised to the manifest's floor ("Playbook runs require Tier 3"). */
export function withFloor(d: RunbookDoc, m: Manifest | null): RunbookDoc {
  const floor = d.kind === 'playbooks' ? (m?.playbookMinTier ?? 1) : 1;
  if (d.minTier >= floor || !m) return d;
  return { ...d, minTier: floor, minTierSource: { file: m.path, line: m.playbookTierLine ?? 0 } };
}

export async function readRepository(path: string): Promise<RepositoryRead> {
  const name = basename(path);
  const issues: Issue[] = [];
  const repository: Repository = { name, path, manifest: null, readme: null, listing: [] };
  const manifestPath = join(path, MANIFEST_FILE);
  const manifestText = await readOptional(manifestPath, issues);
  if (manifestText !== null) {
    const parsed = parseManifest(manifestText, manifestPath);
    repository.manifest = parsed.manifest;
    issues.push(...parsed.issues);
  } else {
    const entries = await readdir(path, { withFileTypes: true });
    repository.listing = entries
      .filter((e) => e.name !== '.git')
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort()
      .slice(0, MAX_LISTING);
    const readme = entries.find((e) => /^readme(\.(md|markdown|txt|rst))?$/i.test(e.name));
    const text = readme ? await readOptional(join(path, readme.name), issues) : null;
    repository.readme = text === null ? null : readmeParagraph(text);
  }
  const ext = join(path, EXTENSION_DIR);
  const docs: RunbookDoc[] = [];
  for (const kind of DOC_KINDS) {
    const found = await readDocFolder(join(ext, kind), kind, path);
    // "Playbook runs require Tier 3" in the manifest holds for this repository's playbooks.
    docs.push(...found.docs.map((d) => withFloor(d, repository.manifest)));
    issues.push(...found.issues);
  }
  const mcpPath = join(ext, 'mcp.json');
  const mcpText = await readOptional(mcpPath, issues);
  const mcp = mcpText === null ? null : parseMcpFile(mcpText, { source: path, path: mcpPath });
  if (mcp) issues.push(...mcp.issues);
  return { repository, docs, servers: mcp?.servers ?? [], issues };
}
