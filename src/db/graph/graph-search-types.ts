/** What the graph's search stores take and give: filters, hits, the words around ideas, vectors. */
import type { Intent } from './graph-rows.js';

export interface IdeaFilter {
  intents?: readonly Intent[];
  /** Said at or after / before (epoch ms). */
  since?: number;
  until?: number;
  sessions?: readonly string[];
  /** Questions still open only. */
  openOnly?: boolean;
}

export interface GraphHit {
  id: number;
  bm25: number;
}

export interface IdeaHit extends GraphHit {
  spanId: number | null;
}

/** Words around an idea that find it too (ideas_fts columns other than its content). */
export interface IdeaContext {
  turn?: string;
  near?: string;
  far?: string;
}

/** Column weights of bm25(ideas_fts): the idea, its turn, the turns next to it, two away. */
export const IDEA_COLUMN_WEIGHTS: readonly [number, number, number, number] = [1, 1, 0.5, 0.25];

/** The shape knowledge/vector-index.ts catches up from (`memoryId` is the idea's or span's id). */
export interface GraphStoredVector {
  id: number;
  memoryId: number;
  vector: Uint8Array;
}
