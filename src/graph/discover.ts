/**
 * The transcript files a backfill reads: one file, every transcript under a folder (subagents
 * included), or all of them (`--all`): Claude Code's projects folder and watchkeeper's own
 * session logs. Oldest first, so that later conversations supersede earlier ones in order.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { AppError } from '../errors.js';
import { isTranscriptFile } from './sources/kind.js';

async function walk(dir: string, out: { path: string; mtimeMs: number }[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await walk(path, out);
    else if (e.isFile() && isTranscriptFile(e.name)) {
      try {
        out.push({ path, mtimeMs: (await stat(path)).mtimeMs });
      } catch {
        // Removed while we looked.
      }
    }
  }
}

/** Transcript files under these paths (files or folders), oldest first, each once. */
export async function transcriptFiles(paths: readonly string[]): Promise<string[]> {
  const found: { path: string; mtimeMs: number }[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    let s;
    try {
      s = await stat(abs);
    } catch {
      throw new AppError('input_unreadable', `${p}: no such file or folder`, {
        data: { field: 'path' },
      });
    }
    if (s.isDirectory()) await walk(abs, found);
    else if (isTranscriptFile(abs)) found.push({ path: abs, mtimeMs: s.mtimeMs });
    else {
      throw new AppError(
        'invalid_input',
        `${p}: not a transcript (the graph reads .jsonl and .ndjson files)`,
        {
          data: { field: 'path' },
        },
      );
    }
  }
  const unique = new Map(found.map((f) => [f.path, f]));
  return [...unique.values()]
    .sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path))
    .map((f) => f.path);
}

/**
 * The transcript being written in a working directory's project folder (the newest one there:
 * the running session's), with its subagents' transcripts. Claude Code names the folder after the
 * directory, every character but letters and digits made `-`.
 */
export async function currentTranscripts(projectsDir: string, cwd: string): Promise<string[]> {
  const folder = join(projectsDir, cwd.replace(/[^A-Za-z0-9]/g, '-'));
  let names: string[];
  try {
    names = (await readdir(folder)).filter((n) => n.endsWith('.jsonl'));
  } catch {
    throw new AppError('not_found', `no Claude Code transcripts for ${cwd} (looked in ${folder})`, {
      data: { field: 'path' },
    });
  }
  const dated = await Promise.all(
    names.map(async (n) => ({ n, mtimeMs: (await stat(join(folder, n))).mtimeMs })),
  );
  const newest = dated.sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
  if (!newest) {
    throw new AppError('not_found', `no Claude Code transcripts for ${cwd} (looked in ${folder})`, {
      data: { field: 'path' },
    });
  }
  const main = join(folder, newest.n);
  const subagents: { path: string; mtimeMs: number }[] = [];
  await walk(join(folder, newest.n.replace(/\.jsonl$/, ''), 'subagents'), subagents);
  return [main, ...subagents.sort((a, b) => a.mtimeMs - b.mtimeMs).map((f) => f.path)];
}
