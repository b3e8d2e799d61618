/**
 * @module portability: memories out and in (issue 14): export as JSON Lines or CSV, import of
 * an export through the memory service's dedup, and import of the MCP reference memory server's
 * knowledge graph into memories and graph entities.
 */
import type { Clock } from '../clock.js';
import { createGraphStore } from '../db/graph/graph.js';
import type { Stores } from '../db/index.js';
import type { Knowledge } from '../knowledge/index.js';
import { exportChunks, type ExportOptions } from './export.js';
import { importMemories, type ImportOptions } from './import.js';
import type { LineSource, NumberedLine } from './lines.js';
import { importMcpMemory, type McpItem } from './mcp-memory.js';

export { CSV_HEADER } from './csv.js';
export { type ExportOptions } from './export.js';
export { FORMAT } from './format.js';
export { type ImportOptions } from './import.js';
export { type ImportJson, importJson, type ImportKind, type ImportOutcome } from './import-json.js';
export {
  type ImportAction,
  type ImportItem,
  type ImportReport,
  MAX_ITEMS,
} from './import-items.js';
export {
  fileLines,
  type LineSource,
  MAX_LINE_BYTES,
  type NumberedLine,
  textLines,
} from './lines.js';
export { graphType, type McpImportReport, type McpItem, serviceOf } from './mcp-memory.js';

export function createPortability(deps: {
  stores: Pick<Stores, 'db' | 'memories' | 'portability' | 'search' | 'services' | 'tombstones'>;
  knowledge: Pick<Knowledge, 'memory' | 'embedding'>;
  clock: Clock;
}) {
  const { stores, knowledge, clock } = deps;
  const now = () => clock.now();
  const graph = createGraphStore(stores.db);
  return {
    exportChunks: (opts: ExportOptions) =>
      exportChunks({ portability: stores.portability, memory: knowledge.memory, now }, opts),
    importMemories: (lines: LineSource, opts?: ImportOptions) =>
      importMemories(
        {
          memories: stores.memories,
          portability: stores.portability,
          search: stores.search,
          services: stores.services,
          tombstones: stores.tombstones,
          memory: knowledge.memory,
          embedding: knowledge.embedding,
          now,
        },
        lines,
        opts,
      ),
    importMcpMemory: (
      lines: AsyncIterable<NumberedLine>,
      opts?: { dryRun?: boolean; onItem?: (item: McpItem) => void },
    ) =>
      importMcpMemory(
        { graph, portability: stores.portability, memory: knowledge.memory, now },
        lines,
        opts,
      ),
  };
}

export type Portability = ReturnType<typeof createPortability>;
