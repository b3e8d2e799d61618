/**
 * Lines of a file or a text, numbered from 1, read as a stream of bytes (a file is never read
 * whole). A line longer than the cap is not kept: it comes out with its length and no text, so
 * that the importer refuses it by its number instead of running out of memory. A line source can
 * be read more than once (an import reads its file twice: the links first, then the records).
 */
import { createReadStream } from 'node:fs';

export interface NumberedLine {
  n: number;
  text: string;
  /** Set when the line is over the cap (its text is then empty): its length and the cap. */
  tooLong?: { bytes: number; limit: number };
}

/**
 * Lines that can be read again from the start: each `for await` reads them anew (fileLines,
 * textLines; a generator, read once, is not one).
 */
export interface LineSource extends AsyncIterable<NumberedLine> {
  readonly rereadable: true;
}

/** The longest line read (the web import's whole file is at most as large). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** "16 MiB", "900 KiB": a byte count for a message. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KiB`;
  return `${n} bytes`;
}

/** Why a line over the cap is refused. */
export function tooLongWhy(line: NumberedLine): string {
  const { bytes, limit } = line.tooLong ?? { bytes: 0, limit: MAX_LINE_BYTES };
  return `the line is ${formatBytes(bytes)}, over the limit of ${formatBytes(limit)} for one line (not read)`;
}

async function* byteLines(
  chunks: AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer>,
  maxBytes: number,
): AsyncGenerator<NumberedLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let over = false;
  let n = 0;
  const finish = (): NumberedLine => {
    n += 1;
    const line: NumberedLine = over
      ? { n, text: '', tooLong: { bytes: size, limit: maxBytes } }
      : { n, text: Buffer.concat(parts).toString('utf8').replace(/\r$/, '') };
    parts = [];
    size = 0;
    over = false;
    return line;
  };
  for await (const chunk of chunks) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      const end = nl === -1 ? buf.length : nl;
      size += end - start;
      if (!over && size > maxBytes) {
        over = true;
        parts = [];
      }
      if (!over && end > start) parts.push(buf.subarray(start, end));
      if (nl === -1) break;
      yield finish();
      start = nl + 1;
    }
  }
  if (size > 0 || over) yield finish();
}

/** A file is opened only when its lines are read, never to look at the source. */
function reusable(open: () => AsyncGenerator<NumberedLine>): LineSource {
  return { rereadable: true, [Symbol.asyncIterator]: open };
}

export function fileLines(path: string, maxBytes = MAX_LINE_BYTES): LineSource {
  return reusable(() => byteLines(createReadStream(path), maxBytes));
}

export function textLines(text: string, maxBytes = MAX_LINE_BYTES): LineSource {
  return reusable(() => byteLines([Buffer.from(text, 'utf8')], maxBytes));
}
