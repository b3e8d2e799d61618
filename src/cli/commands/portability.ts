/**
 * `watchkeeper export`, `watchkeeper import` and `watchkeeper import-mcp-memory`: memories out
 * to JSON Lines, back in through the memory service, and the MCP memory server's graph in.
 */
import { existsSync, statSync } from 'node:fs';

import { AppError } from '../../errors.js';
import { validateService } from '../../memory/index.js';
import {
  createPortability,
  fileLines,
  type ImportItem,
  importJson,
  type McpItem,
} from '../../portability/index.js';
import { openApp } from '../app.js';
import { flag, parse, str, usageError } from '../args.js';
import { json } from '../format.js';
import type { CliIo } from '../io.js';
import { progressReporter } from '../progress.js';

function readableFile(path: string | undefined, what: string): string {
  if (path === undefined) throw usageError(`give the file to import, e.g. ${what}`);
  if (!existsSync(path))
    throw new AppError('invalid_input', `${path}: no such file`, { data: { field: 'path' } });
  if (!statSync(path).isFile())
    throw new AppError('invalid_input', `${path} is not a file`, { data: { field: 'path' } });
  return path;
}

export async function exportCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { all: { type: 'boolean' }, service: { type: 'string' } });
  const service = str(p, 'service');
  const filter = {
    status: flag(p, 'all') ? ('all' as const) : ('active' as const),
    ...(service === undefined ? {} : { service: validateService(service) }),
  };
  const app = openApp(io);
  try {
    const portability = createPortability({ ...app, clock: io.clock });
    const progress = progressReporter(io, 'exported');
    for await (const chunk of portability.exportChunks({
      filter,
      onProgress: (done, total) => progress.update(done, total),
    }))
      io.stdout(chunk);
    progress.end();
    return 0;
  } finally {
    await app.close();
  }
}

const VERB: Record<ImportItem['action'], [string, string]> = {
  created: ['created', 'would create'],
  reinforced: ['reinforced', 'would reinforce'],
  skipped: ['skipped', 'would skip'],
  refused: ['refused', 'refused'],
};

function clip(text: string | null, n = 70): string {
  if (text === null) return '';
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

export async function importCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } }, 1);
  const path = readableFile(p.positionals[0], 'watchkeeper import memories.jsonl');
  const dryRun = flag(p, 'dry-run');
  const app = openApp(io);
  try {
    const portability = createPortability({ ...app, clock: io.clock });
    if (flag(p, 'json')) {
      const report = await portability.importMemories(fileLines(path), { dryRun });
      io.stdout(json(importJson({ kind: 'watchkeeper', report })));
      return 0;
    }
    const progress = progressReporter(io, dryRun ? 'checked' : 'imported');
    if (dryRun) io.stdout('Dry run: nothing is written.\n');
    const report = await portability.importMemories(fileLines(path), {
      dryRun,
      onProgress: (done, total) => progress.update(done, Math.max(done, total)),
      // A real import lists what did not simply come in (a new memory that supersedes one here
      // is listed); a dry run lists every line.
      onItem: (item) => {
        if (!dryRun && item.action === 'created' && !item.why.startsWith('new;')) return;
        const what = item.text === null ? '' : ` "${clip(item.text)}"`;
        const verb = VERB[item.action][dryRun ? 1 : 0];
        io.stdout(`line ${item.line}: ${verb} ${item.kind}${what}: ${item.why}\n`);
      },
    });
    progress.end();
    const c = report.counts;
    io.stdout(
      `${dryRun ? 'Would create' : 'Created'} ${c.created}, ${dryRun ? 'reinforce' : 'reinforced'} ${c.reinforced}, ${dryRun ? 'skip' : 'skipped'} ${c.skipped}, refused ${c.refused}.\n`,
    );
    const sv = report.services;
    if (sv.created + sv.skipped + sv.refused > 0)
      io.stdout(
        `Service descriptions: ${sv.created} ${dryRun ? 'to set' : 'set'}, ${sv.skipped} skipped, ${sv.refused} refused.\n`,
      );
    if (c.refused + sv.refused > 0)
      io.stdout('Refused lines were not imported: fix them and import again.\n');
    return 0;
  } finally {
    await app.close();
  }
}

export async function importMcpMemoryCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } }, 1);
  const path = readableFile(p.positionals[0], 'watchkeeper import-mcp-memory ~/memory.jsonl');
  const dryRun = flag(p, 'dry-run');
  const asJson = flag(p, 'json');
  const app = openApp(io);
  try {
    const portability = createPortability({ ...app, clock: io.clock });
    if (dryRun && !asJson) io.stdout('Dry run: nothing is written.\n');
    const report = await portability.importMcpMemory(fileLines(path), {
      dryRun,
      onItem: (item: McpItem) => {
        if (asJson) return;
        if (!dryRun && item.action !== 'refused' && item.kind !== 'entity') return;
        io.stdout(
          `line ${item.line}: ${dryRun && item.action !== 'refused' ? `would be ${item.action}` : item.action} ${item.kind} "${clip(item.text)}": ${item.why}\n`,
        );
      },
    });
    const o = report.observations;
    const r = report.relations;
    // Not one entity or relation, only malformed lines: the wrong file, not a partial import.
    const seen =
      report.entities.created + report.entities.existing + r.created + r.skipped + r.refused;
    const wrongFile = report.malformed > 0 && seen + o.refused === 0;
    if (asJson && !wrongFile) {
      io.stdout(json(importJson({ kind: 'mcp-memory', report })));
      return 0;
    }
    if (!asJson) {
      io.stdout(
        `Entities: ${report.entities.created} new, ${report.entities.existing} already in the graph.\n` +
          `Observations: ${o.created} new memories, ${o.reinforced} reinforced, ${o.superseded} superseding, ${o.skipped} imported before, ${o.refused} refused.\n` +
          `Relations: ${r.created} new, ${r.skipped} already there, ${r.refused} refused.\n` +
          `Malformed lines skipped: ${report.malformed}.\n`,
      );
    }
    if (wrongFile) {
      throw new AppError(
        'invalid_input',
        `${path} is not an MCP memory file: none of its lines is an entity or a relation`,
      );
    }
    return 0;
  } finally {
    await app.close();
  }
}
