/**
 * What asking to index a file gives: its report, or `queued` when another job holds the file.
 * Shared by the graph's entry (index.ts) and the background queue (index-queue.ts).
 */
import type { IndexReport } from './indexer.js';

export type IndexOutcome =
  IndexReport | (Omit<IndexReport, 'status'> & { status: 'queued'; holder: number });
