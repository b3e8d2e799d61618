/**
 * Which transcripts `graph index` reads (the paths given, the current session's, or every known
 * place), and how many lines in them are new (the progress bar's total).
 */
import { isAppError } from '../../../errors.js';
import {
  countNewLines,
  currentTranscripts,
  fileIdentity,
  type Graph,
  transcriptFiles,
} from '../../../graph/index.js';
import { usageError } from '../../args.js';

export async function filesToIndex(
  paths: string[],
  mode: { all: boolean; current: boolean },
  folders: { projects: string | null; sessionsDir: string; roots: string[] },
): Promise<string[]> {
  if (Number(mode.all) + Number(mode.current) + Number(paths.length > 0) !== 1) {
    throw usageError(
      'graph index needs transcript files or folders, --current or --all (one of them)',
    );
  }
  if (paths.length > 0) return transcriptFiles(paths);
  const { projects, sessionsDir } = folders;
  if (mode.current) {
    if (!projects)
      throw usageError('--current needs HOME (or CLAUDE_CONFIG_DIR) to find the transcripts');
    return currentTranscripts(projects, process.cwd());
  }
  const roots = [projects, sessionsDir, ...folders.roots].filter((p): p is string => p !== null);
  const found: string[] = [];
  for (const root of roots) {
    try {
      found.push(...(await transcriptFiles([root])));
    } catch (err) {
      if (!isAppError(err) || err.code !== 'input_unreadable') throw err;
    }
  }
  return found;
}

/** Lines not read yet in each file (the progress bar's total). */
export async function pendingLines(graph: Graph, files: string[]): Promise<number> {
  let total = 0;
  for (const file of files) {
    try {
      const state = await graph.stores.sources.state(file);
      const now = await fileIdentity(file, 0);
      const from = state && now.size >= state.byteOffset ? state.byteOffset : 0;
      total += await countNewLines(file, from, now.size);
    } catch {
      // Unreadable: reported when it is indexed.
    }
  }
  return total;
}
