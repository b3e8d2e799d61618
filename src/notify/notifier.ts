/**
 * The notifier: records what happened (one notification per kind, service and message inside
 * the de-duplication window, with a count), fans each notification out to every target (over a
 * target's hourly rate limit it is held back, shown as such and mentioned in the next message
 * that target gets), and delivers, retrying a failed delivery with doubling backoff. Everything
 * is in the database, so a restart loses no pending retry; `tick` does one round and the timer
 * of `start` repeats it (it also picks up what the PreToolUse hook process recorded).
 *
 * Instances sharing a database fan out their own notifications, and deliver what is due to their
 * targets: each delivery is claimed before it is sent, so that it goes out once, and a claimant
 * that dies mid-send leaves it due again once the claim has run out. The hourly rate limit counts
 * every instance's deliveries. While the database is unreachable, delivery pauses (one warning for
 * the process), and what is notified meanwhile is held in memory and recorded, in order, once it
 * answers.
 */
import type { Clock } from '../clock.js';
import type { NotificationsConfig } from '../config/index.js';
import {
  type BackgroundLoop,
  createDatabaseOutage,
  type DatabaseOutage,
  type DeliveryRow,
  isUnreachableError,
  type LoopTimers,
  type NotificationRow,
  type NotificationStore,
  startBackgroundLoop,
} from '../db/index.js';
import type { Logger } from '../log.js';
import { sendApprise } from './apprise.js';
import { sendMail } from './mail.js';
import { describe, NOTIFIED_ENDINGS, type NotifyTrigger, outgoing } from './message.js';
import { redact } from './redact.js';
import type { Target } from './targets.js';
import { type OutgoingMessage, postWebhook, webhookRequest } from './webhooks.js';

export type NotifySettings = Pick<
  NotificationsConfig,
  'escalationTier' | 'dedupWindowMs' | 'rateLimitPerHour' | 'retries' | 'timeoutMs'
>;

/** First retry after this, then doubling, at most BACKOFF_MAX_MS. */
export const BACKOFF_BASE_MS = 30_000;
export const BACKOFF_MAX_MS = 3_600_000;
const HOUR_MS = 3_600_000;
const TICK_MS = 5_000;
const LOOP_NAME = 'notification delivery';
/** Notifications held in memory while the database is unreachable (later ones are logged). */
const MAX_HELD = 1_000;
/** A claim lasts the send's time limit and this much more (a slow DNS lookup, a busy loop). */
export const CLAIM_MARGIN_MS = 60_000;

/** Wait before attempt `attempt + 1`, after `attempt` failed ones. */
export function backoffMs(attempt: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
}

/** True when the settings ask for a notification of this trigger. */
export function wanted(t: NotifyTrigger, s: Pick<NotifySettings, 'escalationTier'>): boolean {
  if (t.kind === 'escalation') return s.escalationTier !== null && t.toTier >= s.escalationTier;
  if (t.kind === 'session_ended') return NOTIFIED_ENDINGS.has(t.status);
  return true;
}

/**
 * Stores a trigger as a notification (or counts it on its twin inside the window) without
 * delivering it: what the PreToolUse hook process does; the serving process delivers.
 * Returns the notification id, or null when the settings ask for none.
 */
export function recordTrigger(
  store: NotificationStore,
  settings: Pick<NotifySettings, 'escalationTier' | 'dedupWindowMs'>,
  t: NotifyTrigger,
  now: number,
): number | null {
  if (!wanted(t, settings)) return null;
  const windowStart = settings.dedupWindowMs > 0 ? now - settings.dedupWindowMs : null;
  return store.record({ ...describe(t), at: now }, windowStart).id;
}

export interface TargetInfo {
  key: string;
  label: string;
  kind: Target['kind'];
  via: Target['via'];
  setting: string;
}

export interface NotifierDeps {
  store: NotificationStore;
  targets: Target[];
  settings: NotifySettings;
  clock: Clock;
  log: Logger;
  /** The `apprise` command, when installed (found on PATH by the composition root). */
  appriseBin: string | null;
  /** The environment Apprise's minimal one is taken from. */
  env: Record<string, string | undefined>;
  /** The process's record of a lost database: delivery pauses while it is away. */
  outage?: DatabaseOutage;
  timers?: LoopTimers;
}

export function createNotifier(deps: NotifierDeps) {
  const { store, targets, settings, clock, log } = deps;
  const byKey = new Map(targets.map((t) => [t.key, t]));
  const shutdown = new AbortController();
  let running: Promise<void> | null = null;
  let loop: BackgroundLoop | null = null;
  const outage =
    deps.outage ?? createDatabaseOutage({ probe: () => Promise.resolve(true), clock, log });

  function send(t: Target, m: OutgoingMessage): Promise<void> {
    const e = t.endpoint;
    const o = { timeoutMs: settings.timeoutMs, signal: shutdown.signal };
    switch (e.kind) {
      case 'email':
        return sendMail(e, m, o);
      case 'apprise':
        if (!deps.appriseBin)
          return Promise.reject(new Error('the apprise command is not installed'));
        return sendApprise(deps.appriseBin, e.url, m, { ...o, env: deps.env });
      default:
        return postWebhook(webhookRequest(e, m), o);
    }
  }

  function fanOut(n: NotificationRow, now: number): void {
    const rows = targets.map((t) => {
      const limited =
        n.kind !== 'test' &&
        settings.rateLimitPerHour > 0 &&
        store.countSince(t.key, now - HOUR_MS) >= settings.rateLimitPerHour;
      return limited
        ? {
            targetKey: t.key,
            status: 'suppressed' as const,
            lastError: `held back: the rate limit of ${settings.rateLimitPerHour} per hour for this target was reached`,
          }
        : { targetKey: t.key, status: 'pending' as const, lastError: null };
    });
    store.fanOut(n.id, rows, now);
  }

  async function deliver(d: DeliveryRow): Promise<void> {
    const claimedAt = clock.now();
    const claimedUntil = claimedAt + settings.timeoutMs + CLAIM_MARGIN_MS;
    // Another instance (or an earlier round of this one) has it: it is not sent twice.
    if (d.nextAttemptAt === null || !store.claim(d.id, d.nextAttemptAt, claimedUntil, claimedAt)) {
      return;
    }
    const target = byKey.get(d.targetKey);
    const n = store.get(d.notificationId);
    if (!target || !n) {
      store.recordAttempt(d.id, {
        status: 'failed',
        lastError: 'this target is no longer configured',
        nextAttemptAt: null,
        at: clock.now(),
        claimedUntil,
      });
      return;
    }
    // Named after the instance that raised it, whichever instance delivers it (one that shares
    // a target may claim another's delivery first).
    const message = outgoing(n, {
      suppressed: store.suppressedSinceLastSent(target.key),
      instance: n.instance,
    });
    try {
      await send(target, message);
      store.recordAttempt(d.id, {
        status: 'sent',
        lastError: null,
        nextAttemptAt: null,
        at: clock.now(),
        claimedUntil,
      });
    } catch (err) {
      if (shutdown.signal.aborted) {
        // Due again as it was: the next start (or another instance) delivers it.
        store.release(d.id, claimedUntil, d.nextAttemptAt);
        return;
      }
      const at = clock.now();
      const attempts = d.attempts + 1;
      const error = redact((err as Error).message || String(err), target.secrets);
      const final = attempts > settings.retries;
      const nextAttemptAt = final ? null : at + backoffMs(attempts);
      store.recordAttempt(d.id, {
        status: final ? 'failed' : 'retrying',
        lastError: error,
        nextAttemptAt,
        at,
        claimedUntil,
      });
      log.warn(
        final ? 'notification not delivered; giving up' : 'notification not delivered; will retry',
        {
          notification: n.id,
          target: target.label,
          attempt: attempts,
          error,
          retry_at: nextAttemptAt === null ? undefined : new Date(nextAttemptAt).toISOString(),
        },
      );
    }
  }

  /** Triggers that came while the database was unreachable, recorded in order when it answers. */
  const held: { t: NotifyTrigger; at: number }[] = [];

  async function round(): Promise<void> {
    while (held.length > 0) {
      recordTrigger(store, settings, held[0]!.t, held[0]!.at);
      held.shift();
    }
    const now = clock.now();
    for (let batch = await store.unfanned(); batch.length > 0; batch = await store.unfanned()) {
      for (const n of batch) fanOut(n, now);
    }
    const due = await store.due(now, 200, {
      instance: store.instance,
      targetKeys: [...byKey.keys()],
    });
    // Targets in parallel, each target's deliveries in order: a slow one holds up only itself.
    const perTarget = new Map<string, DeliveryRow[]>();
    for (const d of due) perTarget.set(d.targetKey, [...(perTarget.get(d.targetKey) ?? []), d]);
    await Promise.all(
      [...perTarget.values()].map(async (list) => {
        for (const d of list) {
          if (shutdown.signal.aborted) return;
          await deliver(d);
        }
      }),
    );
  }

  /** One round at a time; it rejects as the store throws. */
  function once(): Promise<void> {
    running ??= round().finally(() => {
      running = null;
    });
    return running;
  }

  /** One round: fan out new notifications, attempt every due delivery. Never rejects. */
  function tick(): Promise<void> {
    return once().catch((err: unknown) => {
      // The delivery loop pauses and retries; the outage is reported once, not per round.
      if (isUnreachableError(err)) outage.lost(LOOP_NAME, err);
      else log.error('notification round failed', { error: err as Error });
    });
  }

  return {
    /** The configured targets, as they may be shown. */
    targets(): TargetInfo[] {
      return targets.map(({ key, label, kind, via, setting }) => ({
        key,
        label,
        kind,
        via,
        setting,
      }));
    },

    /** Records a trigger and, when started, delivers it at once. Never throws. */
    notify(t: NotifyTrigger): number | null {
      try {
        const id = recordTrigger(store, settings, t, clock.now());
        if (id !== null && loop && !loop.paused) setImmediate(() => void loop?.runNow());
        return id;
      } catch (err) {
        if (isUnreachableError(err) && held.length < MAX_HELD) {
          // Recorded by the delivery loop's first round once the database answers.
          held.push({ t, at: clock.now() });
          outage.lost(LOOP_NAME, err);
          return null;
        }
        log.error('recording a notification failed', { error: err as Error, kind: t.kind });
        return null;
      }
    },

    /** A test notification to every target (never de-duplicated or rate limited). */
    sendTest(by: string): number {
      const now = clock.now();
      const { id } = store.record(
        {
          kind: 'test',
          level: 'info',
          service: null,
          title: 'Test notification',
          body: `Sent from the Notifications page by ${by}. If you read this, this target works.`,
          dedupKey: `test|${now}|${Math.random()}`,
          sessionId: null,
          at: now,
        },
        null,
      );
      if (loop && !loop.paused) setImmediate(() => void loop?.runNow());
      return id;
    },

    tick,

    /** Delivers every few seconds until `close`; pauses while the database is away. */
    start(everyMs = TICK_MS): void {
      if (loop) return;
      loop = startBackgroundLoop({
        name: LOOP_NAME,
        everyMs,
        run: once,
        onError: (err) => log.error('notification round failed', { error: err as Error }),
        outage,
        ...(deps.timers ? { timers: deps.timers } : {}),
      });
      loop.start(0);
    },

    /** Stops the timer and cancels what is in flight (it stays due for the next start). */
    async close(): Promise<void> {
      shutdown.abort();
      await loop?.stop();
      await running?.catch(() => undefined);
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
