/**
 * The one ingest path, typed messages -> rows, shared by live sessions and `watchkeeper ingest`.
 * Markers are written as they arrive (an event is in the database seconds after the model wrote
 * it); the same marker repeated within one session is stored once. A live session's writes go
 * through its outbox (marker-outbox.ts), which holds them while the database is unreachable.
 */
import type { Clock } from '../clock.js';
import type { NewEvent, ServiceCheck, Stores } from '../db/index.js';
import {
  markerKey,
  markersFromMessage,
  type StreamMessage,
  type StreamStats,
  TranscriptTracker,
} from '../stream/index.js';
import type { Knowledge } from '../knowledge/index.js';
import type { OnAlert } from './alerts.js';
import type { MarkerOutbox } from './marker-outbox.js';
import { ingestMarker, type MarkerSink } from './ingest/markers.js';
import { createMemoryWrites } from './ingest/memory-writes.js';
import { streamIssuesText } from './ingest/stream-issues.js';
import { emptyCounts, type EscalationRequest, type SessionIngest } from './ingest/types.js';

export type { EscalationRequest, IngestCounts, SessionIngest } from './ingest/types.js';
export { transcriptFields } from './ingest/transcript-fields.js';

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
  const { stores, clock, sessionId } = deps;
  const tracker = new TranscriptTracker();
  const seen = new Set<string>();
  const counts = emptyCounts();
  const escalations: EscalationRequest[] = [];
  const healthMarkers: ServiceCheck[] = [];
  let identified = false;

  /** A row write: now, or held in order while the database is out of reach. */
  const store = (what: unknown, run: () => void) => {
    if (deps.outbox) deps.outbox.submit({ what, run });
    else run();
  };

  // A live session's [EVENT] rows are awaited, each behind the one before it, so that the loop
  // reading the stream never waits on the network (with PostgreSQL a hop away, a round trip per
  // event); `settled` waits for them. Elsewhere (`watchkeeper ingest`) they are written at once,
  // their failure the caller's.
  let awaitedRows: Promise<unknown> = Promise.resolve();
  const agentEvent = (what: unknown, event: NewEvent, stored: () => void) => {
    const outbox = deps.outbox;
    if (!outbox) {
      stores.events.insert(event);
      stored();
      return;
    }
    outbox.submit({
      what,
      run: () => {
        const write = awaitedRows.then(() => stores.events.insertAwaited(event)).then(stored);
        awaitedRows = write.catch(() => undefined); // the outbox sees the failure
        return write;
      },
    });
  };

  const systemEvent = (level: 'info' | 'warning', service: string | null, message: string) => {
    const createdAt = clock.now();
    store({ kind: 'system-event', level, service, message }, () => {
      stores.events.insert({ sessionId, source: 'system', level, service, message, createdAt });
    });
  };

  const memories = createMemoryWrites({ ...deps, counts });
  const sink: MarkerSink = {
    ...deps,
    counts,
    escalations,
    healthMarkers,
    memories,
    store,
    agentEvent,
    systemEvent,
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
        ingestMarker(sink, marker);
      }
    },
    settled: async () => {
      await awaitedRows;
      await memories.settled();
    },
    get failure() {
      return memories.failure;
    },
    counts,
    escalations,
    healthMarkers,
    get transcript() {
      return tracker.summary;
    },
    reportStreamIssues(stats: StreamStats, maxLineBytes: number): void {
      const issues = streamIssuesText(stats, maxLineBytes);
      if (issues === null) return;
      systemEvent(
        'warning',
        null,
        `Session ${sessionId}: stream lines skipped or repaired: ${issues}`,
      );
    },
  };
}
