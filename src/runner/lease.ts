/**
 * Leases on running sessions, for a fleet of instances sharing one database. While a session
 * runs, its runner writes the row's heartbeat every quarter of the lease. Every instance sweeps
 * as often for running sessions of any instance whose heartbeat is older than the lease (an
 * instance killed, or cut off from the database) and marks them interrupted; the update is
 * conditional, so two sweepers never both end the same session.
 */
import type { Clock } from '../clock.js';
import type { ExpiredLease, SessionStore } from '../db/index.js';
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
}

/**
 * Beats at once and then every quarter of the lease until the returned function is called. The
 * timer never keeps the process alive; a failed write is logged and tried again at the next tick
 * (the lease is four ticks long).
 */
export function startHeartbeat(o: HeartbeatOptions): () => void {
  const beat = () => {
    try {
      o.sessions.heartbeat(o.sessionId, o.clock.now());
    } catch (err) {
      o.log.warn('writing the session heartbeat failed', {
        session: o.sessionId,
        error: err as Error,
      });
    }
  };
  beat();
  const timer = setInterval(beat, leaseTickMs(o.leaseMs));
  timer.unref();
  return () => clearInterval(timer);
}

export interface LeaseSweeperOptions {
  sessions: Pick<SessionStore, 'expireLeases'>;
  clock: Clock;
  leaseMs: number;
  log: Logger;
  /** Told of each session the sweep ended (notifications). */
  onAlert?: OnAlert;
}

export interface LeaseSweeper {
  /** One sweep now: the sessions it marked interrupted. */
  sweep(): ExpiredLease[];
  /** Sweeps every quarter of the lease (an unref'd timer) until stop(). */
  start(): void;
  stop(): void;
}

export function createLeaseSweeper(o: LeaseSweeperOptions): LeaseSweeper {
  let timer: NodeJS.Timeout | null = null;
  const sweep = (): ExpiredLease[] => {
    const expired = o.sessions.expireLeases(o.clock.now(), o.leaseMs);
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
  return {
    sweep,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        try {
          sweep();
        } catch (err) {
          o.log.warn('the session lease sweep failed', { error: err as Error });
        }
      }, leaseTickMs(o.leaseMs));
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
