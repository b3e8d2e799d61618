/**
 * Leases on running sessions, for a fleet of instances sharing one database. While a session
 * runs, its runner writes the row's heartbeat every quarter of the lease. Every instance sweeps
 * as often for running sessions of any instance whose heartbeat is older than the lease (an
 * instance killed, or cut off from the database) and marks them interrupted; the update is
 * conditional, so two sweepers never both end the same session.
 */
import type { Clock } from '../clock.js';
import {
  createDatabaseOutage,
  type DatabaseOutage,
  type ExpiredLease,
  type LoopTimers,
  type SessionStore,
  startBackgroundLoop,
} from '../db/index.js';
import type { Logger } from '../log.js';
import { emitAlert, type OnAlert } from './alerts.js';

/** How often a heartbeat is written and a sweep runs: a quarter of the lease. */
export function leaseTickMs(leaseMs: number): number {
  return Math.max(1, Math.floor(leaseMs / 4));
}

export interface HeartbeatOptions {
  sessions: Pick<SessionStore, 'heartbeat'>;
  sessionId: number;
  clock: Clock;
  leaseMs: number;
  log: Logger;
  /** The process's record of a lost database (a quiet one of its own when not given). */
  outage?: DatabaseOutage;
  timers?: LoopTimers;
}

/** An outage record for callers that were given none: pauses and backoff, no log of its own. */
function ownOutage(o: { clock: Clock; outage?: DatabaseOutage }): DatabaseOutage {
  return o.outage ?? createDatabaseOutage({ probe: () => Promise.resolve(true), clock: o.clock });
}

/**
 * Beats at once and then every quarter of the lease until the returned function is called. The
 * timer never keeps the process alive; a failed write is logged and tried again at the next tick
 * (the lease is four ticks long); while the database is unreachable, the beats pause and resume
 * with it, within a tick.
 */
export function startHeartbeat(o: HeartbeatOptions): () => void {
  const warn = (err: unknown) =>
    o.log.warn('writing the session heartbeat failed', {
      session: o.sessionId,
      error: err as Error,
    });
  const loop = startBackgroundLoop({
    name: 'session heartbeat',
    everyMs: leaseTickMs(o.leaseMs),
    run: () => o.sessions.heartbeat(o.sessionId, o.clock.now()),
    onError: warn,
    outage: ownOutage(o),
    ...(o.timers ? { timers: o.timers } : {}),
  });
  o.sessions.heartbeat(o.sessionId, o.clock.now()).catch(warn);
  loop.start();
  return () => void loop.stop();
}

export interface LeaseSweeperOptions {
  sessions: Pick<SessionStore, 'expireLeases'>;
  clock: Clock;
  leaseMs: number;
  log: Logger;
  /** Told of each session the sweep ended (notifications). */
  onAlert?: OnAlert;
  outage?: DatabaseOutage;
  timers?: LoopTimers;
}

export interface LeaseSweeper {
  /** One sweep now: the sessions it marked interrupted. */
  sweep(): Promise<ExpiredLease[]>;
  /**
   * Sweeps every quarter of the lease (an unref'd timer) until stop(). After the database was
   * unreachable, no heartbeat could be written: the first sweep waits one lease, so that running
   * sessions beat again before any is judged.
   */
  start(): void;
  stop(): Promise<void>;
}

export function createLeaseSweeper(o: LeaseSweeperOptions): LeaseSweeper {
  let graceUntil = 0;
  const sweep = async (): Promise<ExpiredLease[]> => {
    const expired = await o.sessions.expireLeases(o.clock.now(), o.leaseMs);
    for (const e of expired) {
      o.log.warn('session interrupted: its instance stopped sending heartbeats', {
        session: e.sessionId,
        instance: e.instance,
        lastBeatAt: new Date(e.lastBeatAt).toISOString(),
      });
      emitAlert(
        o.onAlert,
        {
          kind: 'session_ended',
          status: 'interrupted',
          error: e.error,
          sessionId: e.sessionId,
          tier: null,
        },
        o.log,
      );
    }
    return expired;
  };
  const loop = startBackgroundLoop({
    name: 'session lease sweep',
    everyMs: leaseTickMs(o.leaseMs),
    run: async () => {
      // The first round after an outage: the heartbeats get a lease to resume.
      if (loop.paused) graceUntil = o.clock.now() + o.leaseMs;
      if (o.clock.now() < graceUntil) return;
      await sweep();
    },
    onError: (err) => o.log.warn('the session lease sweep failed', { error: err as Error }),
    outage: ownOutage(o),
    ...(o.timers ? { timers: o.timers } : {}),
  });
  return {
    sweep,
    start: () => loop.start(),
    stop: () => loop.stop(),
  };
}
