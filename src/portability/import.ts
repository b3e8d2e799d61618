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
import type {
  MemoryStore,
  PortabilityStore,
  SearchStore,
  ServiceStore,
  TombstoneStore,
} from '../db/index.js';
import { AppError } from '../errors.js';
import type { Embedding, Judgement, MemoryService } from '../knowledge/index.js';
import { DEFAULT_POLICY, type MemoryPolicy, memoryKey } from '../memory/index.js';
import { FORMAT, firstIssue, MemoryLine, ServiceLine } from './format.js';
import { historyVerdicts, utcMinute } from './import-history.js';
import { type ImportItem, type ImportReport, MAX_ITEMS, refuse } from './import-items.js';
import { headerTotal, importServiceLine, parseJson } from './import-lines.js';
import { linkProblems } from './import-links.js';
import { writeRecord } from './import-write.js';
import { type LineSource, tooLongWhy } from './lines.js';
import { checkMemory, refusal } from './record-rules.js';

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

interface Pending {
  n: number;
  record: MemoryLine;
  service: string | null;
  text: string;
  key: string;
}

export async function importMemories(
  deps: ImportDeps,
  lines: LineSource,
  opts: ImportOptions = {},
): Promise<ImportReport> {
  if ((lines[Symbol.asyncIterator]() as unknown) === lines)
    throw new Error('importMemories reads its lines twice: give fileLines() or textLines()');
  const dryRun = opts.dryRun ?? false;
  const batchSize = opts.batchSize ?? 500;
  const policy = deps.policy ?? DEFAULT_POLICY;
  const { portability, memory } = deps;
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
  const maxIdBefore = portability.maxMemoryId();
  // The exporting database's ids -> ids here, for the links between lines.
  const idMap = new Map<number, number>();
  const memoryLinks: { id: number; supersededBy: number | null; mergedInto: number | null }[] = [];
  const historyLinks: { historyId: number; related: number }[] = [];
  const keysSeen = new Map<string, number>();
  let total = 0;
  let done = 0;
  let header = false;
  let batch: Pending[] = [];

  const known = (p: Pending, id: number | null, why: string) => {
    if (id !== null && p.record.id !== undefined) idMap.set(p.record.id, id);
    emit(skip(p, id, why));
  };

  const flush = async () => {
    if (batch.length === 0) return;
    const todo = batch;
    batch = [];
    const fresh: Pending[] = [];
    // Records found here as they are: recorded as imported with the batch's writes.
    const recognised: { key: string; id: number }[] = [];
    const verdicts = historyVerdicts(
      { portability, tombstones: deps.tombstones, instance: memory.instance },
      todo.map((p) => ({
        ...p.record,
        service: p.service,
        text: p.text,
        createdAt: p.record.created_at,
        key: p.key,
      })),
    );
    const importedBefore = portability.importedMany(
      'watchkeeper',
      todo.map((p) => p.key),
    );
    for (const [i, p] of todo.entries()) {
      const earlier = keysSeen.get(p.key);
      if (earlier !== undefined) {
        emit(skip(p, null, `the same memory as line ${earlier}`));
        continue;
      }
      keysSeen.set(p.key, p.n);
      const here = verdicts[i];
      if (here) {
        if (here.memoryId !== null && !importedBefore.has(p.key))
          recognised.push({ key: p.key, id: here.memoryId });
        known(p, here.memoryId, here.why);
        continue;
      }
      const before = importedBefore.get(p.key);
      if (before !== undefined) {
        known(p, before, `imported before${before === null ? '' : ` (memory #${before})`}`);
        continue;
      }
      fresh.push(p);
    }
    const vectors =
      fresh.length > 0 && deps.embedding.model !== null
        ? await deps.embedding.documents(fresh.map((p) => p.text))
        : null;
    const decided: { p: Pending; vector: Float32Array | null; judged: Judgement }[] = [];
    for (const [i, p] of fresh.entries()) {
      const vector = vectors?.[i] ?? null;
      const judged = await memory.judge({
        service: p.service,
        scope: p.record.scope,
        observation: p.text,
        vector,
        maxId: maxIdBefore,
      });
      decided.push({ p, vector, judged });
    }
    const apply = () => {
      const now = deps.now();
      if (!dryRun)
        for (const k of recognised)
          portability.recordImport('watchkeeper', k.key, 'memory', k.id, now);
      for (const { p, vector, judged } of decided) {
        const r = p.record;
        if (judged.kind === 'duplicate') {
          const how = `${judged.measure} ${judged.similarity.toFixed(2)}`;
          if (!dryRun)
            portability.recordImport('watchkeeper', p.key, 'memory', judged.memory.id, now);
          if (!r.active) {
            emit(
              skip(
                p,
                judged.memory.id,
                `inactive in the file, and memory #${judged.memory.id} says the same (${how})`,
              ),
            );
            continue;
          }
          if (!dryRun)
            memory.reinforceDuplicate(judged.memory.id, {
              observation: p.text,
              source: 'import',
              evidence: `imported line ${p.n}`,
            });
          if (r.id !== undefined) idMap.set(r.id, judged.memory.id);
          emit({
            line: p.n,
            action: 'reinforced',
            kind: 'memory',
            memoryId: judged.memory.id,
            text: p.text,
            why: `says what memory #${judged.memory.id} says (${how})`,
          });
          continue;
        }
        // Of two memories that say otherwise, the newer stays active: an older record is
        // not brought in beside it, a newer one supersedes it.
        let supersedes: number | null = null;
        if (judged.kind === 'contradicts' && r.active) {
          const local = judged.memory;
          const assertedAt = r.last_reinforced_at ?? r.created_at;
          if (local.lastReinforcedAt >= assertedAt) {
            emit(
              skip(
                p,
                local.id,
                `says otherwise than memory #${local.id} here, which is newer (${utcMinute(local.lastReinforcedAt)} UTC, this one ${utcMinute(assertedAt)} UTC); the newer stays`,
              ),
            );
            continue;
          }
          supersedes = local.id;
        }
        let id: number | null = null;
        if (!dryRun) {
          const written = writeRecord({ ...deps, policy }, p, vector, now);
          id = written.id;
          if (supersedes !== null)
            memory.supersede(supersedes, {
              id,
              observation: p.text,
              source: 'import',
              evidence: `imported line ${p.n}`,
            });
          if (r.superseded_by !== null || r.merged_into !== null)
            memoryLinks.push({ id, supersededBy: r.superseded_by, mergedInto: r.merged_into });
          written.history.forEach((h, i) => {
            if (h.related_memory_id !== null)
              historyLinks.push({
                historyId: written.historyIds[i]!,
                related: h.related_memory_id,
              });
          });
          if (r.id !== undefined) idMap.set(r.id, id);
          portability.recordImport('watchkeeper', p.key, 'memory', id, now);
        }
        emit({
          line: p.n,
          action: 'created',
          kind: 'memory',
          memoryId: id,
          text: p.text,
          why:
            supersedes === null
              ? r.active
                ? 'new'
                : 'new (inactive in the file)'
              : `new; supersedes memory #${supersedes} here, which says otherwise and is older`,
        });
      }
    };
    if (dryRun) apply();
    else portability.transaction(apply);
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

function skip(p: Pending, memoryId: number | null, why: string): ImportItem {
  return { line: p.n, action: 'skipped', kind: 'memory', memoryId, text: p.text, why };
}
