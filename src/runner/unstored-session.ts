/**
 * A session that ended while the database was unreachable: its row cannot be finished and its
 * held markers cannot be written yet. The runner does not wait: the session's outcome is
 * `failed` at once, a note beside its log says what is not stored yet (`ID.unstored.ndjson`:
 * a header line, then the held markers in order), and a background timer tries again with a
 * growing pause. When the database answers, the held markers are written, then the row is
 * finished as failed, and the note is removed. If the database never returns before this process
 * ends, the note stays on disk, and the next start's recovery (or another instance's lease sweep)
 * ends the row.
 */
import { rmSync, writeFileSync } from 'node:fs';

import { isUnreachableError } from '../db/index.js';
import type { Logger } from '../log.js';
import type { MarkerOutbox } from './marker-outbox.js';

const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 30_000;

export interface FinishWhenBackOptions {
  sessionId: number;
  outbox: MarkerOutbox;
  /** Resolves true when the database answers a short connection attempt. */
  probe: () => Promise<boolean>;
  /** Where the note goes (sessions/ID.unstored.ndjson). */
  notePath: string;
  /** The status and error the row will carry. */
  status: string;
  error: string;
  endedAt: number;
  /** Writes the row (and what goes with it), awaited; rejects as the stores do. */
  finish: () => Promise<void>;
  /** Told once the row is written, or once giving up on it. */
  done: () => void;
  log: Logger;
  firstPauseMs?: number;
}

/** Writes the note and starts the background retry; returns at once. */
export function finishWhenBack(o: FinishWhenBackOptions): void {
  writeNote(o);
  let pause = o.firstPauseMs ?? FIRST_PAUSE_MS;
  const retry = async (): Promise<void> => {
    await o.outbox.flush();
    if (o.outbox.holding || !(await o.probe())) return later();
    try {
      await o.finish();
    } catch (err) {
      if (isUnreachableError(err)) return later();
      o.log.error('recording the session after the database returned failed', {
        session: o.sessionId,
        error: err as Error,
      });
      return o.done();
    }
    rmSync(o.notePath, { force: true });
    o.log.info(`the database is reachable again; recorded the session as ${o.status}`, {
      session: o.sessionId,
    });
    o.done();
  };
  const later = () => {
    const timer = setTimeout(() => {
      retry().catch((err: unknown) => {
        o.log.error('recording the session after the database returned failed', {
          session: o.sessionId,
          error: err as Error,
        });
        o.done();
      });
    }, pause);
    timer.unref();
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  };
  later();
}

/**
 * The end of a session: its row written now (`record`), or, when markers are still held or the
 * write meets a lost database, by `finishWhenBack`. True when it was handed to the background.
 */
export async function recordNowOrWhenBack(
  o: FinishWhenBackOptions & { record: () => Promise<void> },
): Promise<boolean> {
  if (!o.outbox.holding) {
    try {
      await o.record();
      return false;
    } catch (err) {
      if (!isUnreachableError(err)) throw err;
    }
  }
  finishWhenBack(o);
  return true;
}

function writeNote(o: FinishWhenBackOptions): void {
  const { held, dropped } = o.outbox.state();
  const header = {
    session: o.sessionId,
    status: o.status,
    error: o.error,
    endedAt: new Date(o.endedAt).toISOString(),
    held,
    dropped,
  };
  const lines = [header, ...o.outbox.heldWrites().map((what) => ({ held: what }))];
  try {
    writeFileSync(o.notePath, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  } catch (err) {
    o.log.error('writing the note of unstored markers failed', {
      session: o.sessionId,
      error: err as Error,
    });
  }
  o.log.error(
    `the session ended while the database was unreachable; it will be recorded as ${o.status} when the database returns`,
    { session: o.sessionId, held, dropped, note: o.notePath },
  );
}
