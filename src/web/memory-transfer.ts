/**
 * What the export and import routes share (API and dashboard): the export as a streamed body,
 * an uploaded file recognised as a watchkeeper export or an MCP memory server file and imported
 * (or dry-run), and the uploads kept between the dashboard's preview and its confirmation.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Context } from 'hono';

import { AppError } from '../errors.js';
import {
  createPortability,
  FORMAT,
  type ImportJson,
  importJson,
  type ImportKind,
  type Portability,
  textLines,
} from '../portability/index.js';
import type { WebDeps } from './deps.js';
import { listQuery, toFilter } from './memory-query.js';

/** The largest file the dashboard and the API take (the CLI reads any size as a stream). */
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;

export function portabilityOf(deps: WebDeps): Portability {
  return createPortability({ stores: deps.stores, knowledge: deps.knowledge, clock: deps.clock });
}

/**
 * The memories of the filters in the query string (the Memories page's), as JSON Lines or CSV,
 * one page of memories per chunk: the database is read a page at a time, never held open while
 * the client reads.
 */
export function exportResponse(c: Context, deps: WebDeps): Response {
  const query = listQuery((n) => c.req.query(n));
  const problem = query.problems[0];
  if (problem) {
    throw new AppError('usage', `${problem.field} ${problem.message}`, {
      data: { field: problem.field },
    });
  }
  const format = (c.req.query('format') ?? 'jsonl').toLowerCase();
  if (format !== 'jsonl' && format !== 'csv') {
    throw new AppError('usage', `format must be jsonl or csv, got "${format}"`, {
      data: { field: 'format' },
    });
  }
  const chunks = portabilityOf(deps).exportChunks({ filter: toFilter(query), format });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  const day = new Date(deps.clock.now()).toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
      'Content-Disposition': `attachment; filename="watchkeeper-memories-${day}.${format}"`,
      'Cache-Control': 'no-store',
    },
  });
}

/** Which importer reads this text, from its first line. */
export function importKindOf(text: string): ImportKind {
  const first = text.split('\n', 50).find((l) => l.trim() !== '');
  let value: unknown;
  try {
    value = first === undefined ? undefined : JSON.parse(first);
  } catch {
    value = undefined;
  }
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof v.format === 'string') return 'watchkeeper';
  if (v.type === 'entity' || v.type === 'relation') return 'mcp-memory';
  throw new AppError(
    'invalid_input',
    `file: line 1 is neither a watchkeeper export header ({"format":"${FORMAT}", ...}) nor an MCP memory server line ({"type":"entity", ...})`,
    { data: { field: 'file' } },
  );
}

export async function importText(
  deps: WebDeps,
  text: string,
  dryRun: boolean,
): Promise<ImportJson> {
  const kind = importKindOf(text);
  if (deps.importFile) return importElsewhere(deps.importFile, text, kind, dryRun);
  const portability = portabilityOf(deps);
  const lines = textLines(text);
  if (kind === 'watchkeeper') {
    return importJson({ kind, report: await portability.importMemories(lines, { dryRun }) });
  }
  return importJson({ kind, report: await portability.importMcpMemory(lines, { dryRun }) });
}

/** The text as a file only its owner reads, imported by `importFile`, then removed. */
async function importElsewhere(
  importFile: NonNullable<WebDeps['importFile']>,
  text: string,
  kind: ImportKind,
  dryRun: boolean,
): Promise<ImportJson> {
  const dir = await mkdtemp(join(tmpdir(), 'watchkeeper-import-'));
  try {
    const file = join(dir, 'upload.jsonl');
    await writeFile(file, text, { mode: 0o600 });
    return await importFile(file, kind, dryRun);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Files previewed on the dashboard and waiting for the operator's confirmation: a few at a
 * time, each for half an hour, in this process's memory only.
 */
export function pendingUploads(now: () => number, max = 4, ttlMs = 30 * 60_000) {
  const uploads = new Map<string, { text: string; name: string; at: number }>();
  const sweep = () => {
    for (const [token, u] of uploads) if (now() - u.at > ttlMs) uploads.delete(token);
  };
  return {
    put(text: string, name: string): string {
      sweep();
      while (uploads.size >= max) uploads.delete(uploads.keys().next().value!);
      const token = randomBytes(16).toString('hex');
      uploads.set(token, { text, name, at: now() });
      return token;
    },
    take(token: string): { text: string; name: string } | null {
      sweep();
      const u = uploads.get(token);
      if (!u) return null;
      uploads.delete(token);
      return u;
    },
  };
}
