/**
 * What an import of the MCP memory server's graph reports, and what its steps share: the
 * stores, whether it is a dry run, and the entities of the file met so far.
 */
import type { GraphStore } from '../db/graph/graph.js';
import type { PortabilityStore } from '../db/index.js';
import type { MemoryService } from '../knowledge/index.js';

export type McpAction = 'created' | 'reinforced' | 'superseded' | 'skipped' | 'refused';

export interface McpItem {
  line: number;
  kind: 'entity' | 'observation' | 'relation' | 'line';
  action: McpAction;
  text: string;
  why: string;
  memoryId?: number;
}

export interface McpImportReport {
  dryRun: boolean;
  entities: { created: number; existing: number };
  observations: Record<Exclude<McpAction, 'superseded'> | 'superseded', number>;
  relations: { created: number; skipped: number; refused: number };
  /** Lines that are not an entity or a relation (counted and skipped, as the server does). */
  malformed: number;
  items: McpItem[];
}

export interface McpImportDeps {
  graph: GraphStore;
  portability: PortabilityStore;
  memory: MemoryService;
  now: () => number;
}

/** One import under way. */
export interface McpRun {
  deps: McpImportDeps;
  dryRun: boolean;
  report: McpImportReport;
  emit(item: McpItem): void;
  /** The MCP name of each entity of the file -> the graph entity it became (null in a dry run
   * when it does not exist yet). */
  entities: Map<string, number | null>;
}
