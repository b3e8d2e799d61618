/**
 * Raw stream bytes to a file, unmodified, honouring backpressure; beside it, when each chunk
 * arrived (stream/log-times.ts), so the activity log can show a time per line.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { once } from 'node:events';

import { logTimeLine, logTimesPath } from '../stream/index.js';

export interface RawLog {
  /** Resolves once the chunk is buffered; waits for 'drain' when the file falls behind. */
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

export function createRawLog(path: string): RawLog {
  mkdirSync(dirname(path), { recursive: true });
  const file = createWriteStream(path);
  let failure: Error | null = null;
  file.on('error', (err) => {
    failure = err;
  });
  return {
    async write(chunk) {
      if (failure) throw failure;
      if (!file.write(chunk) && !file.destroyed) {
        // once() rejects on 'error' and removes both of its listeners either way; racing a second
        // once(file, 'error') would leave one listener behind per wait.
        await once(file, 'drain').catch(() => {});
      }
      if (failure) throw failure;
    },
    async close() {
      if (failure) throw failure;
      file.end();
      await once(file, 'finish');
    },
  };
}

export interface SessionTee {
  /** Raw bytes to the log (unless it has failed), then to the parser. Never throws for the log. */
  write(chunk: Uint8Array): Promise<void>;
  /** Ends the parser and closes the log. */
  close(): Promise<void>;
  /** Why writing the log failed, if it did; parsing went on regardless. */
  readonly logFailure: string | null;
}

/**
 * The one tee of a session's stdout: the unmodified bytes to the session log, then to the parser.
 * A log that cannot be written costs the copy, not the rows: parsing goes on. With `now` (a live
 * session), when each chunk arrived is kept beside the log; an imported transcript has no such
 * times (all of it arrives at once).
 */
export function createSessionTee(
  path: string,
  parser: { write(chunk: Uint8Array): void; end(): void },
  now?: () => number,
): SessionTee {
  let logFailure: string | null = null;
  let log: RawLog | null = null;
  let offset = 0;
  // The times are a convenience: a stream that fails is dropped, and the log goes on without it.
  let times: RawLog | null = null;
  try {
    log = createRawLog(path);
    if (now) times = createRawLog(logTimesPath(path));
  } catch (err) {
    logFailure ??= log ? null : (err as Error).message; // e.g. the sessions folder cannot be created
  }
  return {
    async write(chunk) {
      if (log && logFailure === null) {
        try {
          if (times && now) {
            await times.write(Buffer.from(logTimeLine(offset, now()))).catch(() => {
              times = null;
            });
          }
          offset += chunk.length;
          await log.write(chunk);
        } catch (err) {
          logFailure = (err as Error).message;
        }
      }
      parser.write(chunk);
    },
    async close() {
      parser.end();
      await times?.close().catch(() => {});
      await log?.close().catch((err: Error) => {
        logFailure ??= err.message;
      });
    },
    get logFailure() {
      return logFailure;
    },
  };
}
