/**
 * The folders that hold transcripts, and whether a path is a transcript inside one of them. The
 * graph's index API and the Stop hook read only there: a caller names a path, and what it names
 * is the file reached after following every symlink, so a link in a transcript folder to a file
 * elsewhere is outside it. Every refusal is the same `null`, whatever the reason (no such file,
 * outside, not a transcript), so an answer never tells whether a path exists. The detached
 * indexer the hook starts checks its requests with it too.
 */
import { realpathSync, statSync } from 'node:fs';
import { sep } from 'node:path';

import { isTranscriptFile } from './sources/kind.js';

export interface TranscriptFolders {
  /** Claude Code's projects folder (null: no HOME). */
  claudeProjectsDir: string | null;
  /** watchkeeper's session logs (`<data>/sessions`). */
  sessionsDir: string;
  /** WATCHKEEPER_GRAPH_ROOTS. */
  roots: readonly string[];
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The folders, each after following symlinks; a folder that does not exist holds nothing. */
export function transcriptRoots(f: TranscriptFolders): string[] {
  return [f.claudeProjectsDir, f.sessionsDir, ...f.roots]
    .map((p) => (p === null ? null : real(p)))
    .filter((p): p is string => p !== null);
}

/**
 * `path` (absolute) when the file it reaches is a transcript (.jsonl, .ndjson) under one of
 * `roots` (as `transcriptRoots` gives them); null otherwise.
 */
export function transcriptUnder(path: string, roots: readonly string[]): string | null {
  const target = real(path);
  if (target === null || !isTranscriptFile(target) || !isTranscriptFile(path)) return null;
  if (!roots.some((root) => target.startsWith(root.endsWith(sep) ? root : root + sep))) return null;
  try {
    return statSync(target).isFile() ? path : null;
  } catch {
    return null;
  }
}
