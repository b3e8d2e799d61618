/**
 * What one import of a `watchkeeper-memory/1` file shares between its steps: the stores and
 * options, how an item is reported, and the ids and links to map once every record is in.
 */
import type {
  MemoryStore,
  PortabilityStore,
  SearchStore,
  ServiceStore,
  TombstoneStore,
} from '../db/index.js';
import type { Embedding, MemoryService } from '../knowledge/index.js';
import type { MemoryPolicy } from '../memory/index.js';
import type { MemoryLine } from './format.js';
import type { ImportItem } from './import-items.js';

export interface ImportDeps {
  memories: MemoryStore;
  portability: PortabilityStore;
  search: SearchStore;
  services: ServiceStore;
  tombstones: TombstoneStore;
  memory: MemoryService;
  embedding: Embedding;
  now: () => number;
  policy?: MemoryPolicy;
}

export interface ImportOptions {
  dryRun?: boolean;
  /** Records per transaction (and per call to the embedder). */
  batchSize?: number;
  /** Every item as it is decided (the CLI prints them). */
  onItem?: (item: ImportItem) => void;
  onProgress?: (done: number, total: number) => void;
}

export interface Pending {
  n: number;
  record: MemoryLine;
  service: string | null;
  text: string;
  key: string;
}

/** One import under way: its settings, its report hook and what it has learned so far. */
export interface ImportRun {
  deps: ImportDeps;
  dryRun: boolean;
  policy: MemoryPolicy;
  emit(item: ImportItem): void;
  /** Memories made before the import began: the only ones a record may reinforce. */
  maxIdBefore: number;
  /** The exporting database's ids -> ids here, for the links between lines. */
  idMap: Map<number, number>;
  memoryLinks: { id: number; supersededBy: number | null; mergedInto: number | null }[];
  historyLinks: { historyId: number; related: number }[];
  /** Each record's key -> the line it was first seen on. */
  keysSeen: Map<string, number>;
}

export function skip(p: Pending, memoryId: number | null, why: string): ImportItem {
  return { line: p.n, action: 'skipped', kind: 'memory', memoryId, text: p.text, why };
}
