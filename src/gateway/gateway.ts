/**
 * The one model gateway every LLM job goes through (sliding-window summaries, the extraction
 * gate and extractor; later span summaries and HyDE): one `run(job)`, a backend chosen by
 * config, a model per job kind, bounded concurrency, a timeout per attempt, retries with
 * exponential backoff on 429/5xx/network errors, a daily budget in dollars after which jobs wait
 * for the next UTC day (one system event says so), and a record of every job with its model,
 * tokens, cost, duration and outcome. Failures are values: a job that cannot run returns
 * `{ok: false}` with the reason, and with no model configured every job fails at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { Clock } from '../clock.js';
import type { GatewayConfig } from '../config/index.js';
import type { EventStore, GatewayJobStore, JobOutcome, Spending } from '../db/index.js';
import { isAppError } from '../errors.js';
import type { Logger } from '../log.js';
import { parseModelJson, toJsonSchema, validateOutput } from './schema.js';
import type {
  Backend,
  BackendAnswer,
  FailedOutcome,
  GatewayJob,
  GatewayResult,
  GatewayState,
} from './types.js';

const DAY_MS = 86_400_000;
const DEFAULT_MAX_TOKENS = 4096;

export interface GatewayDeps {
  config: GatewayConfig;
  /** Null when the config says off. */
  backend: Backend | null;
  jobs: GatewayJobStore;
  events: EventStore;
  clock: Clock;
  log?: Logger;
  /** First retry delay; doubled per attempt (default 1 s). */
  retryBaseMs?: number;
  /** How often a job waiting for the budget looks again (default 60 s). */
  budgetPollMs?: number;
}

/** A counting semaphore: at most `limit` holders, the rest wait in order. */
function semaphore(limit: number) {
  let held = 0;
  const queue: (() => void)[] = [];
  return {
    get held() {
      return held;
    },
    get waiting() {
      return queue.length;
    },
    async acquire(): Promise<() => void> {
      if (held >= limit) await new Promise<void>((resolve) => queue.push(resolve));
      else held += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const next = queue.shift();
        if (next) next();
        else held -= 1;
      };
    },
  };
}

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function dollars(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

export function createGateway(deps: GatewayDeps) {
  const { config, backend, jobs, events, clock } = deps;
  const retryBaseMs = deps.retryBaseMs ?? 1000;
  const budgetPollMs = deps.budgetPollMs ?? 60_000;
  const slots = semaphore(config.concurrency);
  const closing = new AbortController();
  let budgetWaiting = 0;
  let budgetEventDay: number | null = null;

  // An instance's budget counts its own jobs; the optional fleet cap, every instance's (null
  // without a cap).
  const spentOf = (s: Spending) => ({
    own: s.own,
    fleet: config.fleetBudgetUsd > 0 ? s.fleet : null,
  });
  /** Which budget is spent, if one is, with what was spent against it. */
  const budgetSpent = (
    { own, fleet } = spentOf(jobs.spendingSince(startOfDay(clock.now()))),
  ): {
    budget: number;
    spent: number;
    fleet: boolean;
  } | null => {
    if (config.dailyBudgetUsd > 0 && own >= config.dailyBudgetUsd)
      return { budget: config.dailyBudgetUsd, spent: own, fleet: false };
    if (fleet !== null && fleet >= config.fleetBudgetUsd)
      return { budget: config.fleetBudgetUsd, spent: fleet, fleet: true };
    return null;
  };
  const budgetReached = () => budgetSpent() !== null;
  /**
   * The same reading, awaited (a job's start, from serve's event loop), with the day it is of:
   * the clock may pass midnight while it is read.
   */
  const budgetSpentAwaited = async () => {
    const day = startOfDay(clock.now());
    return { day, over: budgetSpent(spentOf(await jobs.spendingSinceAwaited(day))) };
  };

  const modelFor = (job: GatewayJob<unknown>): string =>
    job.model ?? (config.models as Record<string, string>)[job.kind] ?? config.models.summary;

  /** Waits while today's budget is spent; false when the gateway closed meanwhile. */
  const waitForBudget = async (): Promise<boolean> => {
    let reading = await budgetSpentAwaited();
    if (reading.over === null) return true;
    budgetWaiting += 1;
    try {
      for (; reading.over !== null; reading = await budgetSpentAwaited()) {
        // Said once a day: the day of the reading, not of the clock after it.
        const { day, over } = reading;
        if (budgetEventDay !== day) {
          budgetEventDay = day;
          const { budget, spent } = over;
          const message = over.fleet
            ? `Model gateway: the fleet's daily budget of ${dollars(budget)} is spent (${dollars(spent)} today by every instance); jobs wait until 00:00 UTC`
            : `Model gateway: the daily budget of ${dollars(budget)} is spent (${dollars(spent)} today); jobs wait until 00:00 UTC`;
          await events.insertAwaited({
            sessionId: null,
            source: 'system',
            level: 'warning',
            service: null,
            message,
            createdAt: clock.now(),
          });
          deps.log?.warn('model gateway budget spent: jobs wait for the next day', {
            budget,
            spent,
            fleet: over.fleet,
          });
        }
        try {
          await sleep(budgetPollMs, undefined, { signal: closing.signal });
        } catch {
          return false;
        }
      }
      return true;
    } finally {
      budgetWaiting -= 1;
    }
  };

  const fail = async <T>(
    jobId: number,
    outcome: FailedOutcome,
    error: string,
    extra: Partial<Omit<GatewayResult<T>, 'ok'>> & { durationMs: number; attempts: number },
  ): Promise<GatewayResult<T>> => {
    const row = {
      model: extra.model ?? null,
      inputTokens: extra.inputTokens ?? null,
      outputTokens: extra.outputTokens ?? null,
      costUsd: extra.costUsd ?? null,
      durationMs: Math.round(extra.durationMs),
      attempts: extra.attempts,
    };
    await jobs.finish(jobId, { outcome, error, ...row, at: clock.now() });
    return { ok: false, outcome, error, jobId, ...row };
  };

  const gateway = {
    /** Runs one job; never throws for a failure of the model or the backend. */
    async run<T = unknown>(job: GatewayJob<T>): Promise<GatewayResult<T>> {
      const model = modelFor(job);
      const ref = job.ref ?? null;
      if (!backend) {
        const id = await jobs.start(job.kind, config.backend, model, ref, clock.now());
        return fail(id, 'unavailable', config.offReason ?? 'no model is configured', {
          durationMs: 0,
          attempts: 0,
        });
      }
      if (closing.signal.aborted) {
        const id = await jobs.start(job.kind, backend.name, model, ref, clock.now());
        return fail(id, 'failed', 'the gateway is shut down (watchkeeper is stopping)', {
          durationMs: 0,
          attempts: 0,
        });
      }
      if (/opus/i.test(model)) {
        const id = await jobs.start(job.kind, backend.name, model, ref, clock.now());
        return fail(id, 'failed', `refused: the model gateway never uses opus (${model})`, {
          durationMs: 0,
          attempts: 0,
        });
      }
      if (!(await waitForBudget())) {
        const id = await jobs.start(job.kind, backend.name, model, ref, clock.now());
        return fail(id, 'failed', 'the gateway shut down while the job waited for the budget', {
          durationMs: 0,
          attempts: 0,
        });
      }
      const release = await slots.acquire();
      const id = await jobs.start(job.kind, backend.name, model, ref, clock.now());
      const t0 = performance.now();
      let attempts = 0;
      try {
        const jsonSchema = job.schema ? toJsonSchema(job.schema) : null;
        const messages = job.messages ?? [{ role: 'user' as const, content: job.prompt ?? '' }];
        let answer: BackendAnswer | null = null;
        for (;;) {
          attempts += 1;
          try {
            answer = await backend.call({
              model,
              system: job.system ?? null,
              messages,
              jsonSchema,
              maxTokens: job.maxTokens ?? DEFAULT_MAX_TOKENS,
              timeoutMs: job.timeoutMs ?? config.timeoutMs,
              signal: closing.signal,
            });
            break;
          } catch (err) {
            const data = (isAppError(err) ? err.data : undefined) ?? {};
            const message = err instanceof Error ? err.message : String(err);
            const spent = {
              model: typeof data.model === 'string' ? data.model : model,
              inputTokens: typeof data.inputTokens === 'number' ? data.inputTokens : null,
              outputTokens: typeof data.outputTokens === 'number' ? data.outputTokens : null,
              costUsd: typeof data.costUsd === 'number' ? data.costUsd : null,
            };
            const retries = job.retries ?? config.retries;
            if (data.retryable === true && attempts <= retries && !closing.signal.aborted) {
              const backoff = retryBaseMs * 2 ** (attempts - 1);
              const after = typeof data.retryAfterMs === 'number' ? data.retryAfterMs : 0;
              deps.log?.info('model gateway job failed; retrying', {
                job: id,
                attempt: attempts,
                error: message,
              });
              try {
                await sleep(Math.min(Math.max(backoff, after), 60_000), undefined, {
                  signal: closing.signal,
                });
                continue;
              } catch {
                // closing: report the last failure
              }
            }
            const outcome: FailedOutcome =
              data.timedOut === true
                ? 'timed_out'
                : data.invalidOutput === true
                  ? 'invalid_output'
                  : 'failed';
            return fail(id, outcome, message, {
              ...spent,
              durationMs: performance.now() - t0,
              attempts,
            });
          }
        }
        const cost = {
          model: answer.model ?? model,
          inputTokens: answer.inputTokens,
          outputTokens: answer.outputTokens,
          costUsd: answer.costUsd,
          durationMs: performance.now() - t0,
          attempts,
        };
        let json: T | null = null;
        if (job.schema) {
          let value = answer.json;
          if (value === undefined) {
            const parsed = parseModelJson(answer.text);
            if (!parsed.ok) {
              return fail(id, 'invalid_output', 'the model did not answer with JSON', cost);
            }
            value = parsed.value;
          }
          const checked = validateOutput(value, job.schema);
          if (!checked.ok) {
            return fail(
              id,
              'invalid_output',
              `the answer does not fit the schema: ${checked.problem}`,
              cost,
            );
          }
          json = checked.value;
        }
        const durationMs = Math.round(cost.durationMs);
        await jobs.finish(id, {
          outcome: 'ok' satisfies JobOutcome,
          ...cost,
          durationMs,
          error: null,
          at: clock.now(),
        });
        return { ok: true, jobId: id, text: answer.text, json, ...cost, durationMs };
      } catch (err) {
        // A bug, not a model failure: recorded, and reported as the job's failure.
        return fail(id, 'failed', `internal error: ${(err as Error).message}`, {
          durationMs: performance.now() - t0,
          attempts,
        });
      } finally {
        release();
      }
    },

    /** True when jobs can run at all (a backend is configured). */
    get available(): boolean {
      return backend !== null;
    },

    /** Why no model is configured, when none is. */
    offReason: config.offReason,

    /**
     * Whether today's budget (this instance's, or the fleet's cap) is spent: the synchronous
     * check of a conversation's summary trigger, which claims its row in the same turn.
     * Everything else reads it awaited (`state`, and each job's start).
     */
    budgetReached,

    /** What the dashboard and the API show; its spending is read awaited, in one statement. */
    async state(): Promise<GatewayState> {
      const { own, fleet } = spentOf(await jobs.spendingSinceAwaited(startOfDay(clock.now())));
      return {
        backend: config.backend,
        available: backend !== null,
        offReason: config.offReason,
        models: { ...config.models },
        dailyBudgetUsd: config.dailyBudgetUsd,
        spentTodayUsd: own,
        fleetBudgetUsd: config.fleetBudgetUsd > 0 ? config.fleetBudgetUsd : null,
        fleetSpentTodayUsd: fleet,
        budgetReached: budgetSpent({ own, fleet }) !== null,
        running: slots.held,
        waiting: slots.waiting + budgetWaiting,
      };
    },

    /** Ends waits (budget, backoff): waiting jobs fail; a running call finishes on its own. */
    close(): void {
      closing.abort();
    },
  };
  return gateway;
}

export type Gateway = ReturnType<typeof createGateway>;
