/**
 * Exactly one chain at a time. Cron ticks, and manual, API and alert triggers, go into a small
 * bounded queue and return at once with a request id; a full queue is a clear refusal, never a
 * wait. `stopCurrent` ends the running session (SIGTERM to its process group); `shutdown` stops
 * taking work, ends the running session cleanly and resolves when the loop is idle.
 */
import { randomUUID } from 'node:crypto';

import cron, { type ScheduledTask } from 'node-cron';

import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChainOutcome, ChainRequest, RunChain } from './chain.js';
import { SHUTDOWN_STOP } from './session/verdict.js';

export type RunState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface RunTicket {
  id: string;
  request: ChainRequest;
  state: RunState;
  queuedAt: number;
  sessionIds: number[];
  outcome: ChainOutcome | null;
  error: string | null;
  /** How many more times the same alert arrived within the de-duplication window. */
  repeats: number;
  /** Who cancelled it while it waited (the operator, the API token). */
  cancelledBy: string | null;
}

export type CancelOutcome =
  | { outcome: 'cancelled' | 'not_queued'; ticket: RunTicket }
  | { outcome: 'not_found'; ticket: null };

export interface SchedulerOptions {
  runChain: RunChain;
  queueSize: number;
  /** Cron expression, or null for triggers only. */
  schedule: string | null;
  /** IANA zone the cron expression is read in (WATCHKEEPER_TZ); the system's zone when absent. */
  timeZone?: string;
  log: Logger;
  now?: () => number;
  /**
   * The same alert text within this many ms of an earlier alert joins that run (counted in its
   * `repeats`) instead of queueing another; 0 turns this off.
   */
  alertDedupMs?: number;
  /** A ticket's repeats changed, or its first session started with repeats counted. */
  onRepeats?: (ticket: RunTicket) => void;
}

/** The alert text as compared for de-duplication: runs of white space are one space. */
const alertKey = (request: ChainRequest): string | null =>
  request.trigger === 'alert' && request.alert ? request.alert.replace(/\s+/g, ' ').trim() : null;

const REMEMBERED_TICKETS = 200;

export function createScheduler(opts: SchedulerOptions) {
  const now = opts.now ?? (() => Date.now());
  const queue: RunTicket[] = [];
  const tickets = new Map<string, RunTicket>();
  let current: { ticket: RunTicket; abort: AbortController } | null = null;
  let task: ScheduledTask | null = null;
  let accepting = true;
  let loop: Promise<void> | null = null;
  const idleWaiters: (() => void)[] = [];
  const settleWaiters = new Map<string, ((ticket: RunTicket) => void)[]>();
  const ended = (t: RunTicket) =>
    t.state === 'done' || t.state === 'failed' || t.state === 'cancelled';
  /** Tells those waiting on the ticket that it ended (done, failed or cancelled). */
  const settle = (ticket: RunTicket) => {
    for (const resolve of settleWaiters.get(ticket.id) ?? []) resolve(ticket);
    settleWaiters.delete(ticket.id);
  };

  const remember = (ticket: RunTicket) => {
    tickets.set(ticket.id, ticket);
    if (tickets.size > REMEMBERED_TICKETS) {
      for (const [id, t] of tickets) {
        if (ended(t)) {
          tickets.delete(id);
          break;
        }
      }
    }
  };

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const ticket = queue.shift()!;
      const abort = new AbortController();
      current = { ticket, abort };
      ticket.state = 'running';
      try {
        ticket.outcome = await opts.runChain(ticket.request, abort.signal, (id) => {
          ticket.sessionIds.push(id);
          if (ticket.sessionIds.length === 1 && ticket.repeats > 0) opts.onRepeats?.(ticket);
        });
        ticket.state = 'done';
      } catch (err) {
        // The chain records its own failures as sessions; an exception here is a bug or a
        // database failure. Report it once and keep serving.
        ticket.state = 'failed';
        ticket.error = (err as Error).message;
        opts.log.error('run failed', { request: ticket.id, error: err as Error });
      } finally {
        current = null;
        settle(ticket);
      }
    }
    loop = null;
    for (const resolve of idleWaiters.splice(0)) resolve();
  }

  const scheduler = {
    /** Queues a chain; returns its ticket at once. Throws `busy` when the queue is full. */
    trigger(request: ChainRequest): RunTicket {
      if (!accepting)
        throw new AppError('busy', 'watchkeeper is shutting down and takes no new runs');
      const earlier = scheduler.sameAlert(request);
      if (earlier) {
        earlier.repeats += 1;
        opts.log.info('alert repeated: counted on the run it already started', {
          request: earlier.id,
          repeats: earlier.repeats,
        });
        opts.onRepeats?.(earlier);
        return earlier;
      }
      if (queue.length >= opts.queueSize) {
        throw new AppError(
          'busy',
          `the run queue is full (${opts.queueSize} waiting${current ? ', one running' : ''}); try again later`,
        );
      }
      const ticket: RunTicket = {
        id: randomUUID(),
        request,
        state: 'queued',
        queuedAt: now(),
        sessionIds: [],
        outcome: null,
        error: null,
        repeats: 0,
        cancelledBy: null,
      };
      remember(ticket);
      queue.push(ticket);
      loop ??= drain();
      return ticket;
    },

    ticket(id: string): RunTicket | null {
      return tickets.get(id) ?? null;
    },

    /**
     * Resolves with the ticket once its run has ended (done, failed or cancelled), at once when
     * it already has; null for a request not (or no longer) remembered.
     */
    settled(id: string): Promise<RunTicket | null> {
      const ticket = tickets.get(id);
      if (!ticket || ended(ticket)) return Promise.resolve(ticket ?? null);
      return new Promise((resolve) => {
        settleWaiters.set(id, [...(settleWaiters.get(id) ?? []), resolve]);
      });
    },

    /**
     * The run an alert with this text started within the window (queued, running or ended,
     * but not cancelled or failed to start), or null.
     */
    sameAlert(request: ChainRequest): RunTicket | null {
      const key = alertKey(request);
      const windowMs = opts.alertDedupMs ?? 0;
      if (key === null || windowMs <= 0) return null;
      const since = now() - windowMs;
      let found: RunTicket | null = null;
      for (const t of tickets.values()) {
        if (t.queuedAt < since || t.state === 'cancelled' || t.state === 'failed') continue;
        if (alertKey(t.request) === key && (!found || t.queuedAt > found.queuedAt)) found = t;
      }
      return found;
    },

    /** The running run and the queued ones, in the order they will start. */
    queue(): { running: RunTicket | null; queued: RunTicket[] } {
      return { running: current?.ticket ?? null, queued: [...queue] };
    },

    /**
     * Takes a queued run out of the queue: `not_found` for a request not (or no longer)
     * remembered, `not_queued` for one already running or ended.
     */
    cancel(id: string, actor: string): CancelOutcome {
      const ticket = tickets.get(id) ?? null;
      if (!ticket) return { outcome: 'not_found', ticket };
      const at = queue.indexOf(ticket);
      if (at === -1) return { outcome: 'not_queued', ticket };
      queue.splice(at, 1);
      ticket.state = 'cancelled';
      ticket.cancelledBy = actor;
      ticket.error = `cancelled by ${actor} before it started`;
      settle(ticket);
      opts.log.info('queued run cancelled', { request: id, by: actor });
      return { outcome: 'cancelled', ticket };
    },

    status() {
      return {
        running: current
          ? { id: current.ticket.id, sessionIds: [...current.ticket.sessionIds] }
          : null,
        queued: queue.map((t) => t.id),
        nextRunAt: task?.getNextRun()?.getTime() ?? null,
        schedule: opts.schedule,
      };
    },

    /** Starts the cron schedule (when one is set). */
    start(): void {
      if (!opts.schedule || task) return;
      task = cron.schedule(opts.schedule, () => scheduler.tick(), {
        name: 'watchkeeper',
        noOverlap: false,
        ...(opts.timeZone ? { timezone: opts.timeZone } : {}),
      });
    },

    /** One scheduled tick: skipped while a scheduled chain is still queued or running. */
    tick(): RunTicket | null {
      const pending = [current?.ticket, ...queue].some((t) => t?.request.trigger === 'scheduled');
      if (pending) {
        opts.log.info('scheduled run skipped: the previous one has not finished');
        return null;
      }
      try {
        return scheduler.trigger({ trigger: 'scheduled', startTier: 1, prompt: null, alert: null });
      } catch (err) {
        opts.log.warn('scheduled run skipped', { reason: (err as Error).message });
        return null;
      }
    },

    /** Stops the running session (and so its chain). Returns false when nothing runs. */
    stopCurrent(): boolean {
      if (!current) return false;
      current.abort.abort();
      return true;
    },

    /** Stops taking work, drops the queue, stops the running session and waits for it to end. */
    async shutdown(): Promise<void> {
      accepting = false;
      await task?.destroy();
      task = null;
      for (const t of queue.splice(0)) {
        t.state = 'failed';
        t.error = 'watchkeeper shut down before this run started';
        settle(t);
      }
      current?.abort.abort(SHUTDOWN_STOP);
      if (loop) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
  return scheduler;
}

export type Scheduler = ReturnType<typeof createScheduler>;
