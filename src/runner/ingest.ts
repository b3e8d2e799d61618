/**
 * The one ingest path, typed messages -> rows, shared by live sessions and `watchkeeper ingest`.
 * Markers are written as they arrive (an event is in the database seconds after the model wrote
 * it); the same marker repeated within one session is stored once. A live session's writes go
 * through its outbox (marker-outbox.ts), which holds them while the database is unreachable.
 */
import type { Clock } from '../clock.js';
import type { ServiceCheck, Stores } from '../db/index.js';
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
import {
  emptyCounts,
  type EscalationRequest,
  type RowWrite,
  type SessionIngest,
} from './ingest/types.js';

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

  /**
   * A row write. In a live session (with an outbox) it is awaited, in line behind the ones
   * before it (`settled` waits for them), and held in order while the database is out of reach,
   * so that the loop reading the stream never waits on the network (with PostgreSQL a hop away,
   * a round trip per row). Elsewhere (`watchkeeper ingest`) it is written at once, its failure
   * the caller's.
   */
  let awaitedRows: Promise<unknown> = Promise.resolve();
  const store = <T>(what: unknown, write: RowWrite<T>) => {
    const outbox = deps.outbox;
    if (!outbox) {
      const answer = write.now();
      write.stored?.(answer);
      return;
    }
    outbox.submit({
      what,
      run: () => {
        const written = awaitedRows.then(write.awaited).then((answer) => {
          write.stored?.(answer);
        });
        awaitedRows = written.catch(() => undefined); // the outbox sees the failure
        return written;
      },
    });
  };

  const systemEvent = (level: 'info' | 'warning', service: string | null, message: string) => {
    const row = {
      sessionId,
      source: 'system' as const,
      level,
      service,
      message,
      createdAt: clock.now(),
    };
    store(
      { kind: 'system-event', level, service, message },
      {
        now: () => stores.events.insert(row),
        awaited: () => stores.events.insertAwaited(row),
      },
    );
  };

  const memories = createMemoryWrites({ ...deps, counts });
  const sink: MarkerSink = {
    ...deps,
    counts,
    escalations,
    healthMarkers,
    memories,
    store,
    systemEvent,
  };

  return {
    onMessage(message: StreamMessage): void {
      tracker.observe(message);
      if (!identified) {
        const t = tracker.summary;
        if (t.cliSessionId !== null) {
          const { cliSessionId, model } = t;
          store(
            { kind: 'identity', cliSessionId, model },
            {
              now: () => stores.sessions.identify(sessionId, cliSessionId, model),
              awaited: () => stores.sessions.identifyAwaited(sessionId, cliSessionId, model),
            },
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
