/**
 * The one ingest path, typed messages -> rows, shared by live sessions and `watchkeeper ingest`.
 * Markers are written as they arrive (an event is in the database seconds after the model wrote
 * it); the same marker repeated within one session is stored once. A live session's writes go
 * through its outbox (marker-outbox.ts), which holds them while the database is unreachable.
 */
import type { Clock } from '../clock.js';
import { isUnreachableError, type ServiceCheck, type Stores } from '../db/index.js';
import { isCategory } from '../memory/index.js';
import { stripControlCharacters } from '../text-rules.js';
import {
  type Marker,
  markerKey,
  markersFromMessage,
  type StreamMessage,
  type StreamStats,
  TranscriptTracker,
  type TranscriptSummary,
} from '../stream/index.js';
import type { Knowledge } from '../knowledge/index.js';
import { emitAlert, type OnAlert } from './alerts.js';
import type { HeldWrite, MarkerOutbox } from './marker-outbox.js';

export interface IngestCounts {
  events: number;
  memoriesCreated: number;
  memoriesReinforced: number;
  /** Created memories that replaced a contradicted one (also counted as created). */
  memoriesSuperseded: number;
  servicesDescribed: number;
  cooldowns: number;
  /** Markers reported instead of stored: bad form, over-long, unknown memory category. */
  rejected: number;
  duplicates: number;
}

export interface EscalationRequest {
  tier: number;
  reason: string;
}

export interface SessionIngest {
  onMessage(message: StreamMessage): void;
  /**
   * Resolves when every memory write queued so far has landed (memory writes wait on the
   * embedder, so they run in order behind onMessage). Never rejects: a failed write is counted
   * and its reason kept in `failure`.
   */
  settled(): Promise<void>;
  /** The first memory write that failed, if any. */
  readonly failure: string | null;
  readonly counts: IngestCounts;
  readonly escalations: readonly EscalationRequest[];
  /** `[HEALTH:status:service]` markers, in order (stored with the final response's when it ends). */
  readonly healthMarkers: readonly ServiceCheck[];
  readonly transcript: TranscriptSummary;
  /** Reports what the parser had to skip as one system event, if anything was skipped. */
  reportStreamIssues(stats: StreamStats, maxLineBytes: number): void;
}

// A session that repeats thousands of distinct markers must not grow memory without bound.
const MAX_REMEMBERED_MARKERS = 50_000;

export function createSessionIngest(deps: {
  stores: Stores;
  knowledge: Knowledge;
  clock: Clock;
  sessionId: number;
  tier: number;
  /** Told of each critical event as it is stored (notifications). */
  onAlert?: OnAlert;
  /**
   * Holds the writes made while the database is unreachable and writes them when it returns
   * (live sessions); none: a write's failure is the caller's, as it happens.
   */
  outbox?: MarkerOutbox;
}): SessionIngest {
  const { stores, knowledge, clock, sessionId, tier } = deps;
  // Memory writes in marker order, one at a time, behind the synchronous rows.
  let queue: Promise<void> = Promise.resolve();
  let failure: string | null = null;
  const tracker = new TranscriptTracker();
  const seen = new Set<string>();
  const counts: IngestCounts = {
    events: 0,
    memoriesCreated: 0,
    memoriesReinforced: 0,
    memoriesSuperseded: 0,
    servicesDescribed: 0,
    cooldowns: 0,
    rejected: 0,
    duplicates: 0,
  };
  const escalations: EscalationRequest[] = [];
  const healthMarkers: ServiceCheck[] = [];
  let identified = false;

  /** A row write: now, or held in order while the database is out of reach. */
  const store = (what: unknown, run: () => void) => {
    if (deps.outbox) deps.outbox.submit({ what, run });
    else run();
  };

  const systemEvent = (level: 'info' | 'warning', service: string | null, message: string) => {
    const createdAt = clock.now();
    store({ kind: 'system-event', level, service, message }, () => {
      stores.events.insert({ sessionId, source: 'system', level, service, message, createdAt });
    });
  };

  const ingestMarker = (marker: Marker): void => {
    switch (marker.kind) {
      case 'event': {
        const createdAt = clock.now();
        store(marker, () => {
          stores.events.insert({
            sessionId,
            source: 'agent',
            level: marker.level,
            service: marker.service,
            message: marker.message,
            createdAt,
          });
          counts.events += 1;
        });
        if (marker.level === 'critical') {
          emitAlert(deps.onAlert, {
            kind: 'critical_event',
            service: marker.service,
            message: marker.message,
            sessionId,
            tier,
          });
        }
        return;
      }
      case 'memory': {
        if (!isCategory(marker.category)) {
          counts.rejected += 1;
          systemEvent(
            'warning',
            marker.service,
            `Session ${sessionId}: memory with unknown category "${marker.category}" not stored: ${marker.observation}`,
          );
          return;
        }
        const service = marker.service === 'general' ? null : marker.service;
        const category = marker.category;
        const write: HeldWrite = {
          what: marker,
          run: async () => {
            const outcome = await knowledge.memory.observe({
              service,
              category,
              observation: marker.observation,
              sessionId,
              tier,
            });
            if (outcome.action === 'reinforced') counts.memoriesReinforced += 1;
            else counts.memoriesCreated += 1;
            if (outcome.action === 'superseded') counts.memoriesSuperseded += 1;
          },
        };
        const outbox = deps.outbox;
        queue = queue.then(async () => {
          // Behind writes already held: held too, to keep the order.
          if (outbox?.holding) return outbox.hold(write, null);
          try {
            await write.run();
          } catch (err) {
            if (outbox && isUnreachableError(err)) outbox.hold(write, err);
            else failure ??= (err as Error).message;
          }
        });
        return;
      }
      case 'service':
        store(marker, () => {
          if (knowledge.services.describe(marker.service, marker.description, 'agent')) {
            counts.servicesDescribed += 1;
          }
        });
        return;
      case 'cooldown': {
        const createdAt = clock.now();
        store(marker, () => {
          stores.cooldowns.report({
            service: marker.service,
            actionType: marker.action,
            success: marker.success,
            message: marker.message || null,
            tier,
            sessionId,
            createdAt,
          });
          counts.cooldowns += 1;
        });
        return;
      }
      case 'escalate':
        escalations.push({ tier: marker.tier, reason: marker.reason });
        return;
      case 'health':
        healthMarkers.push({
          service: marker.service,
          health: marker.health,
          detail: marker.detail,
          source: 'marker',
        });
        return;
      case 'rejected':
        counts.rejected += 1;
        systemEvent(
          'warning',
          null,
          `Session ${sessionId}: ${marker.markerKind} marker not stored (${marker.reason}): ${marker.line}`,
        );
        return;
    }
  };

  return {
    onMessage(message: StreamMessage): void {
      tracker.observe(message);
      if (!identified) {
        const t = tracker.summary;
        if (t.cliSessionId !== null) {
          const { cliSessionId, model } = t;
          store({ kind: 'identity', cliSessionId, model }, () =>
            stores.sessions.identify(sessionId, cliSessionId, model),
          );
          identified = true;
        }
      }
      for (const marker of markersFromMessage(message)) {
        const key = markerKey(marker);
        if (seen.has(key)) {
          counts.duplicates += 1;
          continue;
        }
        if (seen.size < MAX_REMEMBERED_MARKERS) seen.add(key);
        ingestMarker(marker);
      }
    },
    settled: () => queue,
    get failure() {
      return failure;
    },
    counts,
    escalations,
    healthMarkers,
    get transcript() {
      return tracker.summary;
    },
    reportStreamIssues(stats: StreamStats, maxLineBytes: number): void {
      const parts: string[] = [];
      if (stats.oversizedLines > 0) {
        parts.push(`${stats.oversizedLines} over the ${formatBytes(maxLineBytes)} line limit`);
      }
      if (stats.nonJsonLines > 0) parts.push(`${stats.nonJsonLines} not JSON`);
      if (stats.invalidUtf8Lines > 0)
        parts.push(
          `${stats.invalidUtf8Lines} with invalid UTF-8 (read with replacement characters)`,
        );
      if (parts.length === 0) return;
      systemEvent(
        'warning',
        null,
        `Session ${sessionId}: stream lines skipped or repaired: ${parts.join(', ')}`,
      );
    },
  };
}

/**
 * The session-row fields a transcript fills: result line, final text, CLI identity, stream stats.
 * The final text is model text, stored without control characters like the markers.
 */
export function transcriptFields(t: TranscriptSummary, stats: StreamStats) {
  const r = t.result;
  return {
    // '' when the line's subtype was missing or not text: stored as unknown.
    resultSubtype: r?.subtype || null,
    isError: r ? r.isError : null,
    costUsd: r?.totalCostUsd ?? null,
    numTurns: r?.numTurns ?? null,
    durationMs: r?.durationMs ?? null,
    durationApiMs: r?.durationApiMs ?? null,
    usage: r?.usage ?? null,
    response: t.finalText === null ? null : stripControlCharacters(t.finalText),
    cliSessionId: t.cliSessionId,
    model: t.model,
    streamStats: stats,
  };
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return `${n} B`;
}
