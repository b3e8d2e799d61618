/**
 * Incremental reading of a transcript file: only what was appended since the last run, whole
 * lines only (a line still being written is left for the next run), in batches so that a large
 * file is never held in memory. A file's identity (device, inode, and a hash of its head) tells a
 * file that grew from one that was rotated or rewritten in place, which is read from the start.
 */
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

import type { FileIdentity } from '../db/graph/graph.js';
import { AppError } from '../errors.js';

/** How often a transcript is looked at again while its last message is awaited. */
const POLL_MS = 100;

/** Bytes of the head hashed for the identity (at most what had been read). */
const HEAD_BYTES = 4096;
const CHUNK = 1024 * 1024;

export interface LineBatch {
  lines: { line: number; bytes: Buffer }[];
  /** Offset just after the last complete line of this batch. */
  endOffset: number;
  lastLine: number;
  /** Lines over the size limit, skipped (counted, never buffered past the cap). */
  oversized: number;
}

async function headHash(path: string, length: number): Promise<string> {
  const n = Math.min(length, HEAD_BYTES);
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buf, 0, n, 0);
    return createHash('sha256').update(buf.subarray(0, bytesRead)).digest('hex');
  } finally {
    await handle.close();
  }
}

/** The file as it is now; `upTo` bounds the hashed head (what will have been read). */
export async function fileIdentity(path: string, upTo: number): Promise<FileIdentity> {
  let s;
  try {
    s = await stat(path);
  } catch (cause) {
    throw new AppError('not_found', `cannot read ${path}: ${(cause as Error).message}`, { cause });
  }
  if (!s.isFile()) throw new AppError('invalid_input', `${path} is not a file`);
  return {
    dev: s.dev,
    ino: s.ino,
    size: s.size,
    mtimeMs: s.mtimeMs,
    headHash: await headHash(path, Math.min(upTo, s.size)),
  };
}

/** Complete lines from `fromOffset` to the end as it is now, in batches of about `batchLines`. */
export async function* readLines(
  path: string,
  from: { offset: number; line: number },
  opts: { maxLineBytes: number; batchLines: number; size: number },
): AsyncGenerator<LineBatch> {
  const handle = await open(path, 'r');
  try {
    let position = from.offset;
    let line = from.line;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let skipping = false;
    let batch: LineBatch = { lines: [], endOffset: position, lastLine: line, oversized: 0 };
    const buf = Buffer.alloc(CHUNK);
    while (position < opts.size) {
      const { bytesRead } = await handle.read(
        buf,
        0,
        Math.min(CHUNK, opts.size - position),
        position,
      );
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl === -1) break;
        const tail = chunk.subarray(start, nl);
        line += 1;
        if (skipping || pendingBytes + tail.length > opts.maxLineBytes) {
          batch.oversized += 1;
        } else {
          const bytes = pendingBytes === 0 ? Buffer.from(tail) : Buffer.concat([...pending, tail]);
          batch.lines.push({ line, bytes });
        }
        pending = [];
        pendingBytes = 0;
        skipping = false;
        batch.endOffset = position + nl + 1;
        batch.lastLine = line;
        start = nl + 1;
        if (batch.lines.length >= opts.batchLines) {
          yield batch;
          batch = { lines: [], endOffset: batch.endOffset, lastLine: line, oversized: 0 };
        }
      }
      const rest = chunk.subarray(start);
      if (!skipping && pendingBytes + rest.length > opts.maxLineBytes) {
        skipping = true;
        pending = [];
        pendingBytes = 0;
      } else if (!skipping && rest.length > 0) {
        pending.push(Buffer.from(rest));
        pendingBytes += rest.length;
      }
      position += bytesRead;
    }
    // What follows the last newline is a line still being written: left for the next run.
    if (batch.lines.length > 0 || batch.oversized > 0) yield batch;
  } finally {
    await handle.close();
  }
}

/** Complete lines after `offset` (the progress bar's total), counted without keeping them. */
export async function countNewLines(path: string, offset: number, size: number): Promise<number> {
  if (size <= offset) return 0;
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(CHUNK);
    let n = 0;
    for (let position = offset; position < size;) {
      const { bytesRead } = await handle.read(buf, 0, Math.min(CHUNK, size - position), position);
      if (bytesRead === 0) break;
      for (let i = buf.indexOf(0x0a, 0); i !== -1 && i < bytesRead; i = buf.indexOf(0x0a, i + 1))
        n += 1;
      position += bytesRead;
    }
    return n;
  } finally {
    await handle.close();
  }
}

export interface WaitOptions {
  waitMs: number;
  /** Between looks (tests pass one that appends what the CLI would write). */
  sleep?: (ms: number) => Promise<unknown>;
}

/**
 * Waits until the transcript holds `text` (its end, JSON-escaped as the CLI writes it) after
 * `from`, for up to `waitMs`. Each look reads only what was appended since the one before, in
 * chunks, keeping the last bytes of a look so that text split across two is still found: a
 * large transcript is read once, never whole into memory. `bytesRead` says how much it read.
 */
export async function waitForText(
  path: string,
  from: number,
  text: string,
  opts: WaitOptions,
): Promise<{ found: boolean; bytesRead: number }> {
  const tail = text.trim().slice(-80);
  if (tail.length === 0) return { found: true, bytesRead: 0 };
  const needle = Buffer.from(JSON.stringify(tail).slice(1, -1));
  const pause = opts.sleep ?? sleep;
  let position = from;
  let kept = Buffer.alloc(0);
  let bytesRead = 0;
  const buf = Buffer.alloc(CHUNK);
  for (let waited = 0; ; waited += POLL_MS) {
    try {
      const handle = await open(path, 'r');
      try {
        const { size } = await handle.stat();
        if (size < position) {
          // Rewritten shorter: what it holds now is all new.
          position = 0;
          kept = Buffer.alloc(0);
        }
        while (position < size) {
          const { bytesRead: n } = await handle.read(
            buf,
            0,
            Math.min(CHUNK, size - position),
            position,
          );
          if (n === 0) break;
          bytesRead += n;
          position += n;
          const seen =
            kept.length > 0 ? Buffer.concat([kept, buf.subarray(0, n)]) : buf.subarray(0, n);
          if (seen.includes(needle)) return { found: true, bytesRead };
          kept = Buffer.from(seen.subarray(Math.max(0, seen.length - needle.length + 1)));
        }
      } finally {
        await handle.close();
      }
    } catch {
      // Not there yet: the CLI creates the file with its first line.
    }
    if (waited >= opts.waitMs) return { found: false, bytesRead };
    await pause(POLL_MS);
  }
}
