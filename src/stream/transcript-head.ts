/**
 * Is this input a stream-json transcript at all? Judged on its first bytes only, before anything
 * is stored, so that `watchkeeper ingest` of an empty file, a binary or some other document is
 * refused instead of becoming a failed session with the junk copied beside the real logs.
 *
 * - Empty or blank input is refused.
 * - A NUL byte is binary: the CLI prints UTF-8 JSON, where a NUL can only appear escaped
 *   (`\u0000`), so a raw NUL byte means an image, an archive, UTF-16 text or the like.
 * - Otherwise one complete line in the head must be a JSON object with a string `type` (every
 *   stream-json line has one). Junk lines before it are tolerated, as the parser tolerates them
 *   (a shell's banner on stdout, say). A first line longer than the whole head is given the
 *   benefit of the doubt when it starts like a JSON object: the parser judges it.
 *
 * The first such line decides, and gives the CLI session id (every stream-json line carries
 * `session_id`), so a transcript already recorded is recognised before it is imported twice.
 */
import { LineSplitter } from './lines.js';
import { parseLine } from './messages.js';

/** How much of the input is read before judging it. */
export const TRANSCRIPT_HEAD_BYTES = 1024 * 1024;

export type TranscriptVerdict =
  { kind: 'transcript'; cliSessionId: string | null } | { kind: 'refused'; reason: string };

const NUL = 0x00;
const OPEN_BRACE = 0x7b;

/**
 * Fed the input chunk by chunk until it returns a verdict; `end` gives the verdict when the input
 * ends first. Work is linear in the bytes seen and memory stays under the head size, whatever the
 * chunking (one byte at a time included).
 */
export class TranscriptHeadJudge {
  private verdict: TranscriptVerdict | null = null;
  private bytes = 0;
  private nonBlankLines = 0;
  private firstLineTooLong = false;
  /** The input's first byte that is not white space, once seen. */
  private firstByte: number | null = null;
  private readonly splitter = new LineSplitter({
    maxLineBytes: TRANSCRIPT_HEAD_BYTES,
    onLine: (line) => this.judgeLine(line),
    onOversized: () => {
      if (this.nonBlankLines === 0) this.firstLineTooLong = true;
      this.nonBlankLines += 1;
    },
  });

  /** The verdict once this chunk is read, or null when more input is needed. */
  push(chunk: Uint8Array): TranscriptVerdict | null {
    if (this.verdict) return this.verdict;
    const room = TRANSCRIPT_HEAD_BYTES - this.bytes;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.includes(NUL)) {
      return this.decide({
        kind: 'refused',
        reason: 'is binary (it holds NUL bytes), not a stream-json transcript',
      });
    }
    this.bytes += part.length;
    if (this.firstByte === null) {
      const at = part.findIndex((b) => !isSpace(b));
      if (at !== -1) this.firstByte = part[at]!;
    }
    this.splitter.push(part);
    if (this.verdict) return this.verdict;
    if (this.bytes < TRANSCRIPT_HEAD_BYTES) return null;
    // The head is full: the line still running is cut, so it is not judged, only noted as long.
    if (this.nonBlankLines === 0) this.firstLineTooLong = true;
    return this.conclude();
  }

  /** The verdict on everything pushed so far, taken as the whole input. */
  end(): TranscriptVerdict {
    if (this.verdict) return this.verdict;
    this.splitter.end();
    return this.verdict ?? this.conclude();
  }

  private conclude(): TranscriptVerdict {
    if (this.bytes === 0) return this.decide({ kind: 'refused', reason: 'is empty' });
    if (this.firstByte === null) {
      return this.decide({ kind: 'refused', reason: 'holds only blank lines' });
    }
    if (this.firstLineTooLong && this.firstByte === OPEN_BRACE) {
      return this.decide({ kind: 'transcript', cliSessionId: null });
    }
    return this.decide({
      kind: 'refused',
      reason:
        'is not a stream-json transcript: no line in its first ' +
        `${TRANSCRIPT_HEAD_BYTES / 1024} KB is a JSON object with a "type" field`,
    });
  }

  private judgeLine(line: Buffer): void {
    if (this.verdict) return;
    const outcome = parseLine(line);
    if (outcome.kind === 'blank') return;
    this.nonBlankLines += 1;
    if (outcome.kind !== 'message' || typeof outcome.message.raw.type !== 'string') return;
    const id = outcome.message.raw.session_id;
    this.decide({
      kind: 'transcript',
      cliSessionId: typeof id === 'string' && id !== '' ? id : null,
    });
  }

  private decide(verdict: TranscriptVerdict): TranscriptVerdict {
    this.verdict = verdict;
    return verdict;
  }
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}
