/**
 * Retention of the Claude CLI's own transcripts in DATA_DIR/claude (where sessions keep them when
 * their credential comes from the environment): a file under its projects/ older than the cutoff
 * goes with the sessions. Only watchkeeper's own folder is pruned, never an operator's
 * CLAUDE_CONFIG_DIR or ~/.claude.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { claudeDataDir } from '../../runner/session/env.js';

/** The transcript files (path -> size) last written before `cutoff`. */
export function oldClaudeTranscripts(dataDir: string, cutoff: number): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // no such folder (yet)
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && e.name.endsWith('.jsonl')) {
        try {
          const st = statSync(path);
          if (st.mtimeMs < cutoff) found.set(path, st.size);
        } catch {
          // removed meanwhile
        }
      }
    }
  };
  walk(join(claudeDataDir(dataDir), 'projects'));
  return found;
}
