/**
 * The CLI's stderr: copied to `sessions/ID.stderr.log` (a convenience, capped, whose failure is
 * logged, never fatal), its tail kept for the session's error, and each chunk shown on the live
 * feed.
 */
import { createWriteStream, type WriteStream } from 'node:fs';

import type { Logger } from '../../log.js';
import type { SessionFeed } from '../live-feed.js';

const STDERR_TAIL = 4000;
const MAX_STDERR_LOG = 16 * 1024 * 1024;

export interface StderrCapture {
  readonly stream: WriteStream;
  onChunk(chunk: Buffer): void;
  /** The last characters the CLI wrote to stderr. */
  readonly tail: string;
  end(): Promise<void>;
}

export function captureStderr(
  path: string,
  sessionId: number,
  feed: SessionFeed,
  log: Logger,
): StderrCapture {
  const stream = createWriteStream(path);
  stream.on('error', (err) =>
    log.warn('writing the stderr log failed', { session: sessionId, error: err }),
  );
  let bytes = 0;
  let tail = '';
  return {
    stream,
    onChunk(chunk) {
      if (bytes < MAX_STDERR_LOG) stream.write(chunk);
      bytes += chunk.length;
      tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      feed.publish(sessionId, { kind: 'stderr', text: chunk.toString('utf8') }, chunk.length);
    },
    get tail() {
      return tail;
    },
    end: () => new Promise<void>((resolve) => stream.end(resolve)),
  };
}
