/**
 * Bytes to lines, with no hard limit that can hang or drop the stream: a line longer than
 * `maxLineBytes` is skipped (counted, never buffered past the cap) and splitting goes on
 * at the next newline. Memory held is at most `maxLineBytes` plus one chunk.
 */

export interface LineSplitterOptions {
  maxLineBytes: number;
  /** Called with each complete line, without its `\n` (a trailing `\r` is kept for the caller). */
  onLine: (line: Buffer) => void;
  /** Called once for each line dropped for being longer than `maxLineBytes`. */
  onOversized: (bytesSeen: number) => void;
}

const NEWLINE = 0x0a;

export class LineSplitter {
  private readonly opts: LineSplitterOptions;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of an over-long line seen so far; -1 while not skipping. */
  private skippedBytes = -1;

  constructor(opts: LineSplitterOptions) {
    this.opts = opts;
  }

  /** Bytes of an unfinished line held between chunks: never more than `maxLineBytes`. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** Feeds one chunk. Lines completed by it are delivered before this returns. */
  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.keep(buf.subarray(start));
        return;
      }
      this.finishLine(buf.subarray(start, nl));
      start = nl + 1;
    }
  }

  /** Flushes a last line that had no trailing newline. Returns true when there was one. */
  end(): boolean {
    if (this.skippedBytes >= 0) {
      this.opts.onOversized(this.skippedBytes);
      this.skippedBytes = -1;
      return true;
    }
    if (this.pendingBytes === 0) return false;
    const line = this.takePending();
    this.opts.onLine(line);
    return true;
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skippedBytes >= 0) {
      this.skippedBytes += part.length;
      return;
    }
    if (this.pendingBytes + part.length > this.opts.maxLineBytes) {
      this.skippedBytes = this.pendingBytes + part.length;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    // Copy: the caller may reuse the chunk's memory after push() returns.
    this.pending.push(Buffer.from(part));
    this.pendingBytes += part.length;
  }

  private finishLine(tail: Buffer): void {
    if (this.skippedBytes >= 0) {
      this.opts.onOversized(this.skippedBytes + tail.length);
      this.skippedBytes = -1;
      return;
    }
    if (this.pendingBytes + tail.length > this.opts.maxLineBytes) {
      this.opts.onOversized(this.pendingBytes + tail.length);
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    if (this.pendingBytes === 0) {
      this.opts.onLine(tail);
      return;
    }
    this.pending.push(tail);
    this.pendingBytes += tail.length;
    this.opts.onLine(this.takePending());
  }

  private takePending(): Buffer {
    const line =
      this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }
}
