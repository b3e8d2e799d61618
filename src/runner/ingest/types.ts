/** What the ingest path counts, collects and answers while it turns messages into rows. */
import type { ServiceCheck } from '../../db/index.js';
import type { StreamMessage, StreamStats, TranscriptSummary } from '../../stream/index.js';

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

/**
 * One row write of a marker: its synchronous and its awaited form (ingest.ts chooses), and what
 * to do with the answer once it is stored (a count).
 */
export interface RowWrite<T = unknown> {
  now(): T;
  awaited(): Promise<T>;
  stored?(answer: T): void;
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

export function emptyCounts(): IngestCounts {
  return {
    events: 0,
    memoriesCreated: 0,
    memoriesReinforced: 0,
    memoriesSuperseded: 0,
    servicesDescribed: 0,
    cooldowns: 0,
    rejected: 0,
    duplicates: 0,
  };
}
