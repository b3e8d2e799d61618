/** What a copy of a store into the fleet's database is given, what it reports, and its plan. */
import type Database from 'better-sqlite3';
import type pg from 'pg';

import { type SourceTable } from './store-copy-schema.js';
import { type TableRecord, type TargetSchema } from './store-copy-target.js';
import type { IdMapping } from './store-copy-values.js';

export interface StoreCopyOptions {
  /** The source store, migrated to the current version (read only is enough). */
  source: Database.Database;
  /** Names the source in the copy record: an interrupted copy resumes only from the same one. */
  sourceName: string;
  pool: pg.Pool;
  instance: string;
  now: () => number;
  /** Rows per batch (default 1,000). */
  batchSize?: number;
  /** Stop after this many batches, as if interrupted (tests). */
  maxBatches?: number;
  onProgress?: (table: string, done: number, total: number) => void;
  onTableDone?: (table: string) => void;
}

export interface TableCopy {
  table: string;
  sourceRows: number;
  /** Rows written by this run (a resumed copy's earlier runs not counted). */
  copiedNow: number;
  /** Source rows whose key the target already held (kept, or mapped onto the target's row). */
  kept: number;
  idOffset: number;
}

export interface StoreCopyResult {
  /** A copy under this instance had begun before (interrupted) and went on. */
  resumed: boolean;
  /** The copy had already finished before this run: nothing was written. */
  alreadyCopied: boolean;
  /** Every table copied (false when stopped by maxBatches). */
  complete: boolean;
  startedAt: number;
  tables: TableCopy[];
}

/** What the verification needs to see the copy as the target holds it. */
export interface CopyPlan {
  tables: SourceTable[];
  order: string[];
  target: TargetSchema;
  records: Map<string, TableRecord>;
  /** Per table, the source keys (keyText) of rows the target already held. */
  conflicts: Map<string, Set<string>>;
  mapping: IdMapping;
}
