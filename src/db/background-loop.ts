/**
 * Background work when the database goes away. Every loop that runs on its own (embedding
 * catch-up, notification delivery, lease sweeps and heartbeats, extraction, graph indexing,
 * summaries) goes through here, so that a lost database is met as the foreground meets it: the
 * loop pauses, tries again after a growing pause (a short connection attempt first, never the
 * synchronous bridge's wait), and resumes when the database answers. The process shares one
 * `DatabaseOutage`: one warning when the first loop meets the outage, one line and one system
 * event when the database answers again, whatever the number of loops and ticks in between.
 * Any other failure is handed to the loop's `onError`; nothing is thrown out of a timer.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { EventStore } from './events/events.js';
import { isUnreachableError } from './reachability.js';

/** The first pause after a lost database; it doubles up to the loop's own period. */
export const FIRST_PAUSE_MS = 1_000;
/** The longest pause between two connection attempts of a paused loop. */
export const LONGEST_PAUSE_MS = 30_000;

export interface DatabaseOutage {
  /** True from the first loop that met a lost database until one found it again. */
  readonly down: boolean;
  /** A loop met a lost database, or its connection attempt failed (the first is logged). */
  lost(loop: string, err: unknown): void;
  /** A loop that had met the outage went through again: logged and recorded, once. */
  restored(loop: string): void;
  /** One short connection attempt: true when the database answers. */
  probe(): Promise<boolean>;
}

export interface DatabaseOutageOptions {
  probe(): Promise<boolean>;
  clock: Clock;
  log?: Logger;
  /** Where the one system event per outage is written (when the database is back). */
  events?: Pick<EventStore, 'insert'>;
}

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))} s`;

export function createDatabaseOutage(o: DatabaseOutageOptions): DatabaseOutage {
  let since: number | null = null;
  const paused = new Set<string>();
  return {
    get down() {
      return since !== null;
    },
    lost(loop, err) {
      if (!paused.has(loop)) o.log?.debug('background loop paused', { loop });
      paused.add(loop);
      if (since !== null) return;
      since = o.clock.now();
      o.log?.warn('the database is unreachable; background work pauses until it returns', {
        loop,
        error: err as Error,
      });
    },
    restored(loop) {
      if (since === null) return;
      paused.add(loop);
      const now = o.clock.now();
      const loops = [...paused].sort();
      try {
        o.events?.insert({
          sessionId: null,
          source: 'system',
          level: 'warning',
          service: null,
          message:
            `The database was unreachable for ${seconds(now - since)} (from ` +
            `${new Date(since).toISOString()}): background work (${loops.join(', ')}) paused ` +
            'and resumed when it answered again.',
          createdAt: now,
        });
      } catch (err) {
        // Lost again already: the outage goes on, and the next loop through records it.
        if (isUnreachableError(err)) return;
        o.log?.error('recording the database outage failed', { error: err as Error });
      }
      o.log?.info('the database is reachable again; background work resumed', {
        downMs: now - since,
        loops,
      });
      since = null;
      paused.clear();
    },
    probe: () => o.probe().catch(() => false),
  };
}

/** How a loop waits: a timer that never keeps the process alive (tests inject their own). */
export interface LoopTimers {
  /** Calls `fn` after `ms`; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const realTimers: LoopTimers = {
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};

/** Pauses that double from `first` up to `longest`, and start again after `reset`. */
export function growingPause(first: number, longest: number) {
  let next = 0;
  return {
    next(): number {
      next = next === 0 ? Math.min(first, longest) : Math.min(next * 2, longest);
      return next;
    },
    reset(): void {
      next = 0;
    },
    get pausing(): boolean {
      return next > 0;
    },
  };
}

/**
 * For a job that met a lost database and must wait to finish: resolves true once the database
 * answers (asked with a growing pause), false when `signal` aborts first (shutting down).
 */
export async function untilReachable(
  outage: DatabaseOutage,
  signal: AbortSignal,
  timers: LoopTimers = realTimers,
): Promise<boolean> {
  const pause = growingPause(FIRST_PAUSE_MS, LONGEST_PAUSE_MS);
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const finish = () => {
        signal.removeEventListener('abort', finish);
        cancel();
        resolve();
      };
      const cancel = timers.after(pause.next(), finish);
      signal.addEventListener('abort', finish, { once: true });
    });
    if (!signal.aborted && (await outage.probe())) return true;
  }
  return false;
}

export interface BackgroundLoopOptions {
  /** What the loop does, as the log and the outage's system event name it. */
  name: string;
  everyMs: number;
  /** One round; a lost database pauses the loop, any other failure goes to `onError`. */
  run(): unknown;
  onError(err: unknown): void;
  outage: DatabaseOutage;
  /** The longest pause while the database is away (default: the period, at most 30 s). */
  longestPauseMs?: number;
  timers?: LoopTimers;
}

export interface BackgroundLoop {
  /** Starts the rounds: the first after `firstAfterMs` (default: one period). */
  start(firstAfterMs?: number): void;
  /** A round now, unless one runs (then it resolves with that one). */
  runNow(): Promise<void>;
  /** True while the loop waits for the database. */
  readonly paused: boolean;
  /** No more rounds; resolves when the running one is over. */
  stop(): Promise<void>;
}

export function startBackgroundLoop(o: BackgroundLoopOptions): BackgroundLoop {
  const timers = o.timers ?? realTimers;
  const pause = growingPause(
    Math.min(FIRST_PAUSE_MS, o.everyMs),
    o.longestPauseMs ?? Math.min(Math.max(o.everyMs, FIRST_PAUSE_MS), LONGEST_PAUSE_MS),
  );
  let cancel: (() => void) | null = null;
  let started = false;
  let stopped = false;
  let current: Promise<void> | null = null;

  const attempt = async (): Promise<boolean> => {
    // Known to be away: a short connection attempt first, never the bridge's blocking wait.
    // Once another loop has found the database again, this one simply runs: a probe that is
    // only slow (a busy host) must not start a second outage.
    if (o.outage.down && !(await o.outage.probe())) {
      o.outage.lost(o.name, null);
      return false;
    }
    try {
      await o.run();
    } catch (err) {
      if (isUnreachableError(err)) {
        o.outage.lost(o.name, err);
        return false;
      }
      o.onError(err);
    }
    if (pause.pausing) o.outage.restored(o.name);
    pause.reset();
    return true;
  };

  const schedule = (ms: number) => {
    cancel?.();
    cancel = stopped ? null : timers.after(ms, () => void round());
  };

  const round = (): Promise<void> => {
    current ??= attempt()
      .catch((err: unknown) => {
        o.onError(err);
        return true;
      })
      .then((ok) => {
        current = null;
        if (started) schedule(ok ? o.everyMs : pause.next());
      });
    return current;
  };

  return {
    start(firstAfterMs = o.everyMs) {
      if (started || stopped) return;
      started = true;
      schedule(firstAfterMs);
    },
    runNow: round,
    get paused() {
      return pause.pausing;
    },
    async stop() {
      stopped = true;
      cancel?.();
      cancel = null;
      await current;
    },
  };
}
