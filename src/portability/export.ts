/**
 * Export of memories as JSON Lines (`watchkeeper-memory/1`) or CSV, produced page by page (500
 * memories at a time, each with its history), so that 100,000 memories export in the memory of
 * one page whatever the consumer: a file, a pipe or a web response.
 */
import type { MemoryFilter, PortabilityStore, PortableMemory } from '../db/index.js';
import type { MemoryService } from '../knowledge/index.js';
import { csvLine, CSV_HEADER, csvRow } from './csv.js';
import { FORMAT, type ExportHeader, memoryRecord, serviceRecord } from './format.js';

export interface ExportDeps {
  portability: PortabilityStore;
  memory: Pick<MemoryService, 'inactiveReason'>;
  now: () => number;
}

export interface ExportOptions {
  filter: MemoryFilter;
  format?: 'jsonl' | 'csv';
  /** Called after each page with the memories written so far and the total. */
  onProgress?: (done: number, total: number) => void;
  pageSize?: number;
}

function filterJson(filter: MemoryFilter): ExportHeader['filter'] {
  const out: ExportHeader['filter'] = { status: filter.status ?? 'active' };
  if (filter.service !== undefined) out.service = filter.service;
  if (filter.category !== undefined) out.category = filter.category;
  if (filter.importance !== undefined) out.importance = filter.importance;
  if (filter.archived !== undefined) out.archived = filter.archived;
  return out;
}

function reasonOf(deps: ExportDeps, p: PortableMemory): string | null {
  if (p.memory.active) return null;
  return deps.memory.inactiveReason(p.memory)?.reason ?? null;
}

/** The export as chunks of text (the header and services first, then a chunk per page). */
export async function* exportChunks(deps: ExportDeps, opts: ExportOptions): AsyncGenerator<string> {
  const { filter } = opts;
  const total = await deps.portability.count(filter);
  const csv = opts.format === 'csv';
  if (csv) {
    yield csvLine(CSV_HEADER);
  } else {
    const services =
      filter.service === undefined
        ? await deps.portability.describedServices()
        : filter.service === null
          ? []
          : await deps.portability.describedServices([filter.service]);
    const header: ExportHeader = {
      format: FORMAT,
      exported_at: new Date(deps.now()).toISOString(),
      filter: filterJson(filter),
      memories: total,
      services: services.length,
    };
    yield `${JSON.stringify(header)}\n${services.map((s) => `${JSON.stringify(serviceRecord(s))}\n`).join('')}`;
  }
  let done = 0;
  opts.onProgress?.(0, total);
  for await (const page of deps.portability.pages(filter, opts.pageSize)) {
    let chunk = '';
    for (const p of page) {
      chunk += csv
        ? csvLine(csvRow(p, reasonOf(deps, p)))
        : `${JSON.stringify(memoryRecord(p, reasonOf(deps, p)))}\n`;
    }
    done += page.length;
    yield chunk;
    opts.onProgress?.(done, total);
  }
}
