/**
 * The Markdown documents of one checks/, playbooks/ or skills/ folder, from the built-in library
 * or a repository's `.claude-ops/`. A folder that is missing holds nothing; one that cannot be
 * read, or a file that is not Markdown, is an issue.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { parseDocument } from './document.js';
import type { DocKind, Issue, RunbookDoc } from './types.js';

export function errorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}: ${e.message.replace(/^\w+: /, '')}` : String(e.message ?? err);
}

export async function readDocFolder(
  dir: string,
  kind: DocKind,
  source: string,
): Promise<{ docs: RunbookDoc[]; issues: Issue[] }> {
  const docs: RunbookDoc[] = [];
  const issues: Issue[] = [];
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { docs, issues };
    issues.push({ file: dir, line: 0, message: `cannot be read (${errorText(err)})` });
    return { docs, issues };
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name.startsWith('.')) continue;
    if (!/\.md$/i.test(name)) {
      issues.push({ file: path, line: 0, message: `not a Markdown document (.md): not used` });
      continue;
    }
    try {
      const parsed = parseDocument(await readFile(path, 'utf8'), { kind, source, path });
      docs.push(parsed.doc);
      issues.push(...parsed.issues);
    } catch (err) {
      issues.push({ file: path, line: 0, message: `cannot be read (${errorText(err)})` });
    }
  }
  return { docs, issues };
}
