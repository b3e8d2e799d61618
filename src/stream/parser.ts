/**
 * Bytes in, typed messages out. Feed chunks with `write`, call `end` once; every tolerated
 * oddity (blank, junk, over-long, invalid UTF-8, unknown type, missing final newline) is
 * counted in `stats` and parsing goes on.
 */
import { LineSplitter } from './lines.js';
import { parseLine } from './messages.js';
import { emptyStats, type StreamMessage, type StreamStats } from './types.js';

/** Default cap on one stream line: longer lines are skipped and counted. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface StreamParserOptions {
  maxLineBytes?: number;
  /** `bytes` is the size of the line the message came from. */
  onMessage: (message: StreamMessage, bytes: number) => void;
  /** Told about each skipped line, e.g. to log it; never required. */
  onSkipped?: (reason: 'oversized' | 'not_json' | 'not_object' | 'too_deep', bytes: number) => void;
}

export class StreamParser {
  readonly stats: StreamStats = emptyStats();
  private readonly splitter: LineSplitter;
  private readonly opts: StreamParserOptions;
  private ended = false;

  constructor(opts: StreamParserOptions) {
    this.opts = opts;
    this.splitter = new LineSplitter({
      maxLineBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      onLine: (line) => this.handleLine(line),
      onOversized: (bytes) => {
        this.stats.lines += 1;
        this.stats.oversizedLines += 1;
        this.opts.onSkipped?.('oversized', bytes);
      },
    });
  }

  /** Bytes held for an unfinished line (bounded by `maxLineBytes`). */
  get bufferedBytes(): number {
    return this.splitter.bufferedBytes;
  }

  write(chunk: Uint8Array): void {
    if (this.ended) throw new Error('StreamParser.write after end');
    this.stats.bytes += chunk.length;
    this.splitter.push(chunk);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stats.unterminatedLastLine = this.splitter.end();
  }

  private handleLine(line: Buffer): void {
    this.stats.lines += 1;
    const outcome = parseLine(line);
    if (outcome.kind === 'blank') {
      this.stats.blankLines += 1;
      return;
    }
    if (outcome.invalidUtf8) this.stats.invalidUtf8Lines += 1;
    if (outcome.kind === 'junk') {
      this.stats.nonJsonLines += 1;
      this.opts.onSkipped?.(outcome.reason, line.length);
      return;
    }
    this.stats.messages += 1;
    if (outcome.message.type === 'unknown') this.stats.unknownTypes += 1;
    this.opts.onMessage(outcome.message, line.length);
  }
}

/** Anything `for await` can read bytes from: a Readable, an async generator, an array. */
export type ByteSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** Parses a whole readable byte stream; resolves with the stats once it has ended. */
export async function parseStream(
  source: ByteSource,
  opts: StreamParserOptions,
): Promise<StreamStats> {
  const parser = new StreamParser(opts);
  for await (const chunk of source) {
    parser.write(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  }
  parser.end();
  return parser.stats;
}
