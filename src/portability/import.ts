/**
 * Import of a `watchkeeper-memory/1` file. This store's newer history wins: a record of a memory
 * deleted here (a tombstone has its hash), or of one still here (as it is, or as it was before
 * an edit or merge here), is skipped and nothing is reactivated. Then the memory service's rule:
 * a record that says what an active memory here says reinforces it (or, inactive in the file, is
 * skipped); one that says otherwise keeps the newer of the two active (an older record is
 * skipped, a newer one supersedes the memory here); anything else is written back with every
 * field it was exported with (import-write.ts). Each record is imported once (its key, kept in
 * memory_imports), so importing a file again changes nothing.
 *
 * The file is read twice as a stream: first the ids and links (a repeated id and a cycle of
 * links are refused), then the records, one transaction per batch. Every field is checked by the
 * rules the API and the memory service apply (record-rules.ts); a bad line is refused with its
 * number, and so is a line too long to read.
 */
import { AppError } from '../errors.js';
import { DEFAULT_POLICY, memoryKey } from '../memory/index.js';
import { FORMAT, firstIssue, MemoryLine, ServiceLine } from './format.js';
import { importBatch } from './import-batch.js';
import { type ImportItem, type ImportReport, MAX_ITEMS, refuse } from './import-items.js';
import { headerTotal, importServiceLine, parseJson } from './import-lines.js';
import { linkProblems } from './import-links.js';
import type { ImportDeps, ImportOptions, ImportRun, Pending } from './import-run.js';
import { type LineSource, tooLongWhy } from './lines.js';
import { checkMemory, refusal } from './record-rules.js';

export type { ImportDeps, ImportOptions } from './import-run.js';

export async function importMemories(
  deps: ImportDeps,
  lines: LineSource,
  opts: ImportOptions = {},
): Promise<ImportReport> {
  // Asked without opening anything: starting an iterator of a file would open it, unread.
  if ((lines as Partial<LineSource>).rereadable !== true)
    throw new Error('importMemories reads its lines twice: give fileLines() or textLines()');
  const dryRun = opts.dryRun ?? false;
  const batchSize = opts.batchSize ?? 500;
  const policy = deps.policy ?? DEFAULT_POLICY;
  const { portability } = deps;
  const report: ImportReport = {
    dryRun,
    counts: { created: 0, reinforced: 0, skipped: 0, refused: 0 },
    services: { created: 0, reinforced: 0, skipped: 0, refused: 0 },
    items: [],
    lines: 0,
  };
  const emit = (item: ImportItem) => {
    (item.kind === 'service' ? report.services : report.counts)[item.action] += 1;
    if (report.items.length < MAX_ITEMS) report.items.push(item);
    opts.onItem?.(item);
  };
  // Lines with an id used before, or on a cycle of links: refused before anything is written.
  const linkRefusals = await linkProblems(lines);
  // Memories made before the import began: the only ones a record may reinforce, so that two
  // memories of one file never fold into one.
  const run: ImportRun = {
    deps,
    dryRun,
    policy,
    emit,
    maxIdBefore: portability.maxMemoryId(),
    idMap: new Map(),
    memoryLinks: [],
    historyLinks: [],
    keysSeen: new Map(),
  };
  const { idMap, memoryLinks, historyLinks } = run;
  let total = 0;
  let done = 0;
  let header = false;
  let batch: Pending[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const todo = batch;
    batch = [];
    await importBatch(run, todo);
    done += todo.length;
    opts.onProgress?.(done, total);
  };

  for await (const line of lines) {
    const { n, text } = line;
    report.lines = n;
    if (line.tooLong !== undefined) {
      if (!header)
        throw new AppError('invalid_input', `line ${n}: ${tooLongWhy(line)}`, {
          data: { field: 'format' },
        });
      emit(refuse(n, 'line', tooLongWhy(line)));
      continue;
    }
    if (text.trim() === '') continue;
    if (!header) {
      total = headerTotal(n, text);
      header = true;
      continue;
    }
    const linkProblem = linkRefusals.get(n);
    if (linkProblem !== undefined) {
      emit(refuse(n, 'memory', linkProblem));
      continue;
    }
    const parsed = parseJson(text);
    if (!parsed.ok) {
      emit(refuse(n, 'line', parsed.why));
      continue;
    }
    const type = (parsed.value as { type?: unknown } | null)?.type;
    if (type === 'service') {
      const s = ServiceLine.safeParse(parsed.value);
      if (!s.success) emit(refuse(n, 'service', firstIssue(s.error)));
      else emit(importServiceLine(deps, n, s.data, dryRun));
      continue;
    }
    if (type !== 'memory') {
      emit(
        refuse(
          n,
          'line',
          `type: ${JSON.stringify(type ?? null)} is neither "memory" nor "service"`,
        ),
      );
      continue;
    }
    const m = MemoryLine.safeParse(parsed.value);
    if (!m.success) {
      emit(refuse(n, 'memory', firstIssue(m.error)));
      continue;
    }
    let checked: { service: string | null; text: string };
    try {
      checked = checkMemory(m.data, deps.now());
    } catch (err) {
      emit(refuse(n, 'memory', refusal(err)));
      continue;
    }
    batch.push({
      n,
      record: m.data,
      ...checked,
      key: memoryKey({ ...m.data, ...checked, createdAt: m.data.created_at }),
    });
    if (batch.length >= batchSize) await flush();
  }
  if (!header) {
    throw new AppError('invalid_input', `the file is empty: no "${FORMAT}" header line`, {
      data: { field: 'format' },
    });
  }
  await flush();
  if (!dryRun && (memoryLinks.length > 0 || historyLinks.length > 0)) {
    portability.transaction(() => {
      const mapped = (id: number | null) => (id === null ? null : (idMap.get(id) ?? null));
      for (const l of memoryLinks)
        portability.setLinks(l.id, {
          supersededBy: mapped(l.supersededBy),
          mergedInto: mapped(l.mergedInto),
        });
      for (const l of historyLinks) portability.setHistoryRelated(l.historyId, mapped(l.related));
    });
  }
  return report;
}
