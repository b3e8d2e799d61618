/**
 * The activity log of a finished session, read from its raw stream-json file. The whole file is
 * parsed as a stream but only the last `maxEntries` lines are kept, so memory stays bounded
 * however large the file is.
 */
import { createReadStream } from 'node:fs';
import { resolve, sep } from 'node:path';

import { parseStream } from '../stream/index.js';
import { entriesFromMessage, type LogEntry } from './session-log.js';

export interface LogTail {
  /** The last entries of the log, oldest first. */
  entries: LogEntry[];
  /** How many earlier entries were left out. */
  omitted: number;
  /** True when the session has no log file (never started, imported, or deleted). */
  missing: boolean;
}

/** Where a session's log lives; null when its recorded path would leave the data folder. */
export function logFilePath(dataDir: string, logPath: string | null): string | null {
  if (!logPath) return null;
  const root = resolve(dataDir);
  const path = resolve(root, logPath);
  return path.startsWith(root + sep) ? path : null;
}

/** Reads the last `maxEntries` log entries of a file; other read errors are thrown. */
export async function readLogTail(
  path: string | null,
  opts: { maxEntries: number; maxLineBytes: number },
): Promise<LogTail> {
  if (path === null) return { entries: [], omitted: 0, missing: true };
  let kept: LogEntry[] = [];
  let total = 0;
  try {
    await parseStream(createReadStream(path), {
      maxLineBytes: opts.maxLineBytes,
      onMessage: (message) => {
        for (const e of entriesFromMessage(message)) {
          total += 1;
          kept.push(e);
        }
        // Trim in batches: one copy per maxEntries lines rather than a shift per line.
        if (kept.length >= 2 * opts.maxEntries) kept = kept.slice(-opts.maxEntries);
      },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return { entries: [], omitted: 0, missing: true };
    }
    throw err;
  }
  const entries = kept.slice(-opts.maxEntries);
  return { entries, omitted: total - entries.length, missing: false };
}
