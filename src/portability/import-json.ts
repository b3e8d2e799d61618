/**
 * An import's report as the API answers it and `watchkeeper import --json` prints it (snake
 * case), for a watchkeeper export and for an MCP memory server file alike; the dashboard shows
 * the same.
 */
import { FORMAT } from './format.js';
import type { ImportReport } from './import-items.js';
import type { McpImportReport } from './mcp-report.js';

export type ImportKind = 'watchkeeper' | 'mcp-memory';

export type ImportOutcome =
  { kind: 'watchkeeper'; report: ImportReport } | { kind: 'mcp-memory'; report: McpImportReport };

export function importJson(outcome: ImportOutcome) {
  if (outcome.kind === 'watchkeeper') {
    const r = outcome.report;
    return {
      format: FORMAT as typeof FORMAT,
      dry_run: r.dryRun,
      counts: r.counts,
      services: r.services,
      items: r.items.map((i) => ({
        line: i.line,
        action: i.action,
        kind: i.kind,
        memory_id: i.memoryId,
        text: i.text,
        why: i.why,
      })),
    };
  }
  const r = outcome.report;
  return {
    format: 'mcp-memory' as const,
    dry_run: r.dryRun,
    entities: r.entities,
    observations: r.observations,
    relations: r.relations,
    malformed: r.malformed,
    items: r.items.map((i) => ({
      line: i.line,
      action: i.action,
      kind: i.kind,
      memory_id: i.memoryId ?? null,
      text: i.text,
      why: i.why,
    })),
  };
}

export type ImportJson = ReturnType<typeof importJson>;
