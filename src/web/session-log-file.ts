/**
 * The activity log of a finished session, read from its raw stream-json file a page at a time:
 * a page is about LOG_PAGE_BYTES of whole lines, read backward from the end, so the session page
 * costs the same for a 100 MB log as for a small one. A page's `start` (a byte offset at a line
 * start) is the cursor of the page before it.
 */
import { createReadStream } from 'node:fs';
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';

import { logTimeAt, logTimesPath, parseLogTimes, parseStream } from '../stream/index.js';
import { entriesFromMessage, type LogEntry } from './session-log.js';

/** Bytes of log one page reads (a single longer line is read whole, up to maxLineBytes). */
export const LOG_PAGE_BYTES = 256 * 1024;
const SCAN_CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

export interface LogPage {
  /** The page's entries, oldest first. */
  entries: LogEntry[];
  /** Where the page starts in the file (a line start); 0: nothing comes before it. */
  start: number;
  /** Where the page ends (exclusive). */
  end: number;
  /** True when the session has no log file (never started, imported, or deleted). */
  missing: boolean;
}

/** The arrival times beside the log, or [] when none were kept (older sessions, imports). */
async function arrivalTimes(path: string): Promise<[number, number][]> {
  try {
    return parseLogTimes(await readFile(logTimesPath(path), 'utf8'));
  } catch {
    return [];
  }
}

/** Where a session's log lives; null when its recorded path would leave the data folder. */
export function logFilePath(dataDir: string, logPath: string | null): string | null {
  if (!logPath) return null;
  const root = resolve(dataDir);
  const path = resolve(root, logPath);
  return path.startsWith(root + sep) ? path : null;
}

/** The first line start at or after `from` and before `end`, or -1 when there is none. */
async function lineStartAfter(fh: FileHandle, from: number, end: number): Promise<number> {
  const buf = Buffer.alloc(SCAN_CHUNK);
  for (let pos = from - 1; pos < end - 1; pos += SCAN_CHUNK) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(SCAN_CHUNK, end - 1 - pos), pos);
    const nl = buf.subarray(0, bytesRead).indexOf(NEWLINE);
    if (nl !== -1) return pos + nl + 1;
    if (bytesRead === 0) break;
  }
  return -1;
}

/** The start of the line that holds byte `at` (scanning back; 0 at the file's start). */
async function lineStartBefore(fh: FileHandle, at: number): Promise<number> {
  const buf = Buffer.alloc(SCAN_CHUNK);
  for (let stop = at; stop > 0; stop -= SCAN_CHUNK) {
    const pos = Math.max(0, stop - SCAN_CHUNK);
    const { bytesRead } = await fh.read(buf, 0, stop - pos, pos);
    const nl = buf.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (nl !== -1) return pos + nl + 1;
  }
  return 0;
}

/**
 * The page of the log that ends at `before` (default: the end of the file): whole lines from
 * about `pageBytes` before it. Read errors other than a missing file are thrown.
 */
export async function readLogPage(
  path: string | null,
  opts: { maxLineBytes: number; before?: number; pageBytes?: number },
): Promise<LogPage> {
  const none: LogPage = { entries: [], start: 0, end: 0, missing: true };
  if (path === null) return none;
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return none;
    throw err;
  }
  let start: number;
  let end: number;
  try {
    const size = (await fh.stat()).size;
    end = Math.min(opts.before ?? size, size);
    const target = Math.max(0, end - (opts.pageBytes ?? LOG_PAGE_BYTES));
    start = target === 0 ? 0 : await lineStartAfter(fh, target, end);
    // One line longer than a page: the page is that line.
    if (start === -1) start = await lineStartBefore(fh, target);
  } finally {
    await fh.close();
  }
  const entries: LogEntry[] = [];
  if (end > start) {
    const times = await arrivalTimes(path);
    // Each line's start, from the sizes the parser reports (a line and its newline).
    let at = start;
    await parseStream(createReadStream(path, { start, end: end - 1 }), {
      maxLineBytes: opts.maxLineBytes,
      onMessage: (message, bytes) => {
        const time = logTimeAt(times, at);
        at += bytes + 1;
        entries.push(...entriesFromMessage(message).map((e) => ({ ...e, at: time })));
      },
      onSkipped: (_reason, bytes) => {
        at += bytes + 1;
      },
    });
  }
  return { entries, start, end, missing: false };
}
