/**
 * A session's store writes while the database is out of reach (the fleet's PostgreSQL lost in
 * mid-session): a write that fails because the database cannot be reached is held, with every
 * write after it, in a bounded queue, and they are written in order once it answers again. The
 * held writes are tried again on the next marker and on a timer, each time after a short
 * connection attempt of its own (`probe`, awaited), so the loop that reads the CLI's stream
 * never waits on a database that is down. One warning per outage, not per marker.
 *
 * When the queue is full, later writes are dropped (counted): what was kept is written when the
 * database returns, and the session is recorded as failed.
 */
import { isUnreachableError } from '../db/index.js';
import type { Logger } from '../log.js';

/** How many writes one session holds while the database is unreachable. */
export const MAX_HELD_WRITES = 1_000;
/** How often held writes are tried again while the session runs. */
export const RETRY_EVERY_MS = 1_000;

export interface HeldWrite {
  /** What it stores, for the log and the note on disk (a marker, or the row's identity). */
  what: unknown;
  /** The write; throws as the store does. A promise for writes that wait (memories). */
  run(): void | Promise<void>;
}

export interface OutboxState {
  /** Writes still held (the database was still unreachable at the last try). */
  held: number;
  /** Writes dropped because the queue was full. */
  dropped: number;
  /** Writes that were held and later stored. */
  stored: number;
  /** Whether the database was unreachable at any point. */
  outage: boolean;
}

export interface MarkerOutbox {
  /** True while writes are held: new ones queue behind them. */
  readonly holding: boolean;
  /** Runs the write now, or holds it behind those already held. Other errors are thrown. */
  submit(write: HeldWrite): void;
  /** Holds a write that failed because the database was unreachable (a waiting write's path). */
  hold(write: HeldWrite, cause: unknown): void;
  /** Tries the held writes now, in order; resolves when this try is over. */
  flush(): Promise<void>;
  state(): OutboxState;
  /** What is still held, in order. */
  heldWrites(): unknown[];
  /** Stops the timer (the session ended); held writes stay held. */
  stop(): void;
}

export interface OutboxOptions {
  sessionId: number;
  log: Logger;
  /** Resolves true when the database answers a short connection attempt. */
  probe: () => Promise<boolean>;
  /** A held write failed for another reason (it is dropped from the queue). */
  onFailure: (err: unknown) => void;
  /** The held writes are all stored again (the outage is over). */
  onRestored?: () => void;
  max?: number;
  retryMs?: number;
}

export function createMarkerOutbox(o: OutboxOptions): MarkerOutbox {
  const max = o.max ?? MAX_HELD_WRITES;
  const held: HeldWrite[] = [];
  let dropped = 0;
  let stored = 0;
  let outage = false;
  let warned = false;
  let overflowWarned = false;
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const startTimer = () => {
    if (timer || stopped) return;
    timer = setInterval(() => void run(), o.retryMs ?? RETRY_EVERY_MS);
    timer.unref();
  };
  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };

  const hold = (write: HeldWrite, cause: unknown) => {
    outage = true;
    if (!warned) {
      warned = true;
      o.log.warn("the database is unreachable; holding this session's markers until it returns", {
        session: o.sessionId,
        max,
        error: cause as Error,
      });
    }
    if (held.length >= max) {
      dropped += 1;
      if (!overflowWarned) {
        overflowWarned = true;
        o.log.error(
          `the database is still unreachable and ${max} markers are held; later markers are not stored`,
          { session: o.sessionId },
        );
      }
      return;
    }
    held.push(write);
    startTimer();
  };

  const attempt = async (): Promise<void> => {
    if (held.length === 0) return;
    if (!(await o.probe())) return;
    const before = stored;
    while (held.length > 0) {
      const write = held[0]!;
      try {
        await write.run();
        stored += 1;
      } catch (err) {
        if (isUnreachableError(err)) return;
        o.onFailure(err);
      }
      held.shift();
    }
    stopTimer();
    warned = false;
    o.log.info('the database is reachable again; stored the markers held for this session', {
      session: o.sessionId,
      stored: stored - before,
      dropped,
    });
    o.onRestored?.();
  };

  // A try asked for while one is under way (its probe may be stale) runs again after it.
  let again = false;
  const run = (): Promise<void> => {
    flushing ??= (async () => {
      do {
        again = false;
        await attempt();
      } while (again && held.length > 0);
    })().finally(() => {
      flushing = null;
    });
    return flushing;
  };
  const flush = (): Promise<void> => {
    if (flushing) again = true;
    return run();
  };

  return {
    get holding() {
      return held.length > 0;
    },
    submit(write) {
      if (held.length > 0) {
        hold(write, null);
        void run(); // a try unless one is under way
        return;
      }
      let result: void | Promise<void>;
      try {
        result = write.run();
      } catch (err) {
        if (!isUnreachableError(err)) throw err;
        hold(write, err);
        return;
      }
      if (result instanceof Promise) {
        result.catch((err: unknown) => {
          if (isUnreachableError(err)) hold(write, err);
          else o.onFailure(err);
        });
      }
    },
    hold,
    flush,
    state: () => ({ held: held.length, dropped, stored, outage }),
    heldWrites: () => held.map((w) => w.what),
    stop() {
      stopped = true;
      stopTimer();
    },
  };
}

/**
 * What a session's row says when the database was out of reach for part of it: markers held
 * past its end (stored only once the database returned) or dropped from a full queue (kept only
 * in the session log); null when every marker was stored while the session ran.
 */
export function outageError(s: OutboxState, max = MAX_HELD_WRITES): string | null {
  const parts: string[] = [];
  if (s.held > 0) {
    parts.push(
      `the database was unreachable when the session ended: its ${s.held} held markers were ` +
        'stored only when it returned',
    );
  }
  if (s.dropped > 0) {
    parts.push(
      `${s.held > 0 ? '' : 'the database was unreachable during the session: '}${s.dropped} ` +
        `markers after the first ${max} held were not stored (they are in the session log)`,
    );
  }
  return parts.length > 0 ? parts.join('; ') : null;
}
