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

export type RunState = 'queued' | 'running' | 'done' | 'failed';

export interface RunTicket {
  id: string;
  request: ChainRequest;
  state: RunState;
  queuedAt: number;
  sessionIds: number[];
  outcome: ChainOutcome | null;
  error: string | null;
}

export interface SchedulerOptions {
  runChain: RunChain;
  queueSize: number;
  /** Cron expression, or null for triggers only. */
  schedule: string | null;
  log: Logger;
  now?: () => number;
}

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

  const remember = (ticket: RunTicket) => {
    tickets.set(ticket.id, ticket);
    if (tickets.size > REMEMBERED_TICKETS) {
      for (const [id, t] of tickets) {
        if (t.state === 'done' || t.state === 'failed') {
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
        ticket.outcome = await opts.runChain(ticket.request, abort.signal, (id) =>
          ticket.sessionIds.push(id),
        );
        ticket.state = 'done';
      } catch (err) {
        // The chain records its own failures as sessions; an exception here is a bug or a
        // database failure. Report it once and keep serving.
        ticket.state = 'failed';
        ticket.error = (err as Error).message;
        opts.log.error('run failed', { request: ticket.id, error: err as Error });
      } finally {
        current = null;
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
      };
      remember(ticket);
      queue.push(ticket);
      loop ??= drain();
      return ticket;
    },

    ticket(id: string): RunTicket | null {
      return tickets.get(id) ?? null;
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
      }
      current?.abort.abort();
      if (loop) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
  return scheduler;
}

export type Scheduler = ReturnType<typeof createScheduler>;
