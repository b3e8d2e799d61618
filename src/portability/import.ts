/**
 * Import of a `watchkeeper-memory/1` file through the memory service's dedup rule: a memory
 * that says what an active memory here already says reinforces it (or, inactive in the file, is
 * skipped); anything else is written back with every field it was exported with (confidence,
 * dates, history, provenance), so that an export imported into an empty store exports the same.
 * Each record is imported once (its key: scope, service, category, words and creation time, kept
 * in memory_imports), so importing a file again changes nothing. Lines are read as a stream and
 * written one transaction per batch; a bad line is reported with its number and skipped.
 */
import { createHash } from 'node:crypto';

import type { MemoryStore, PortabilityStore, SearchStore, ServiceStore } from '../db/index.js';
import { AppError, isAppError } from '../errors.js';
import type { Embedding, Judgement, MemoryService } from '../knowledge/index.js';
import {
  DEFAULT_POLICY,
  type MemoryPolicy,
  nextDecayAt,
  toBlob,
  validateObservation,
  validateService,
} from '../memory/index.js';
import { FORMAT, firstIssue, MemoryLine, ServiceLine } from './format.js';
import type { NumberedLine } from './lines.js';

export type ImportAction = 'created' | 'reinforced' | 'skipped' | 'refused';

export interface ImportItem {
  line: number;
  action: ImportAction;
  kind: 'memory' | 'service' | 'line';
  /** The memory made or reinforced, or the one that made it a skip. */
  memoryId: number | null;
  text: string | null;
  why: string;
}

export interface ImportReport {
  dryRun: boolean;
  /** Memory lines (and lines that are neither memory nor service). */
  counts: Record<ImportAction, number>;
  /** Service description lines. */
  services: Record<ImportAction, number>;
  /** The first items (MAX_ITEMS); `counts` has them all. */
  items: ImportItem[];
  /** Lines read (the header included). */
  lines: number;
}

export interface ImportDeps {
  memories: MemoryStore;
  portability: PortabilityStore;
  search: SearchStore;
  services: ServiceStore;
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

export const MAX_ITEMS = 2000;

interface Pending {
  n: number;
  record: MemoryLine;
  service: string | null;
  text: string;
  key: string;
}

/** What makes a record the same memory wherever it is imported. */
export function memoryKey(r: {
  scope: string;
  service: string | null;
  category: string;
  text: string;
  created_at: number;
}): string {
  return createHash('sha256')
    .update(JSON.stringify([r.scope, r.service, r.category, r.text, r.created_at]))
    .digest('hex');
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; why: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, why: `not JSON (${(err as Error).message})` };
  }
}

export async function importMemories(
  deps: ImportDeps,
  lines: AsyncIterable<NumberedLine>,
  opts: ImportOptions = {},
): Promise<ImportReport> {
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

  const flush = async () => {
    if (batch.length === 0) return;
    const todo = batch;
    batch = [];
    const fresh: Pending[] = [];
    for (const p of todo) {
      const earlier = keysSeen.get(p.key);
      if (earlier !== undefined) {
        emit(skip(p, null, `the same memory as line ${earlier}`));
        continue;
      }
      keysSeen.set(p.key, p.n);
      const before = portability.importedAs('watchkeeper', p.key);
      if (before !== undefined) {
        if (before !== null && p.record.id !== undefined) idMap.set(p.record.id, before);
        emit(skip(p, before, `imported before${before === null ? '' : ` (memory #${before})`}`));
        continue;
      }
      const same = portability.sameMemory({
        observation: p.text,
        service: p.service,
        category: p.record.category,
        scope: p.record.scope,
        createdAt: p.record.created_at,
      });
      if (same !== null) {
        if (p.record.id !== undefined) idMap.set(p.record.id, same);
        if (!dryRun) portability.recordImport('watchkeeper', p.key, 'memory', same, deps.now());
        emit(skip(p, same, `already here as memory #${same}`));
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
      const judged = await deps.memory.judge({
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
      for (const { p, vector, judged } of decided) {
        const r = p.record;
        if (judged.kind === 'duplicate') {
          const how = `${judged.measure} ${judged.similarity.toFixed(2)}`;
          if (!r.active) {
            if (!dryRun)
              portability.recordImport('watchkeeper', p.key, 'memory', judged.memory.id, now);
            emit(
              skip(
                p,
                judged.memory.id,
                `inactive in the file, and memory #${judged.memory.id} says the same (${how})`,
              ),
            );
            continue;
          }
          if (!dryRun) {
            deps.memory.reinforceDuplicate(judged.memory.id, {
              observation: p.text,
              source: 'import',
              evidence: `imported line ${p.n}`,
            });
            portability.recordImport('watchkeeper', p.key, 'memory', judged.memory.id, now);
          }
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
        const note =
          judged.kind === 'contradicts'
            ? `new; says otherwise than memory #${judged.memory.id} (both kept: merge or archive one)`
            : 'new';
        let id: number | null = null;
        if (!dryRun) {
          const lastReinforcedAt = r.last_reinforced_at ?? r.created_at;
          const history: MemoryLine['history'] =
            r.history.length > 0
              ? r.history
              : [
                  {
                    action: 'imported' as const,
                    old_confidence: null,
                    new_confidence: r.confidence,
                    observation: p.text,
                    session_id: null,
                    created_at: now,
                    source: 'import' as const,
                    evidence: `imported line ${p.n}`,
                    related_memory_id: null,
                  },
                ];
          const written = portability.insertMemory({
            service: p.service,
            category: r.category,
            observation: p.text,
            confidence: r.confidence,
            baseConfidence: r.base_confidence ?? r.confidence,
            active: r.active,
            pinned: r.pinned,
            createdAt: r.created_at,
            updatedAt: r.updated_at ?? r.created_at,
            lastReinforcedAt,
            tier: r.provenance.tier,
            lastSurfacedAt: r.last_surfaced_at,
            surfaceCount: r.surface_count,
            importance: r.importance,
            importanceBoost: r.importance_boost,
            source: r.provenance.source,
            sourceRef: r.provenance.source_ref,
            scope: r.scope,
            // Whoever imports it learned it (or the fleet, by a share rule).
            instance: deps.memory.instanceFor(p.service, r.category),
            archivedAt: r.archived_at,
            archiveReason: r.archive_reason,
            accessCount: r.access_count,
            lastAccessedAt: r.last_accessed_at,
            nextDecayAt: nextDecayAt(lastReinforcedAt, now, policy),
            history: history.map((h) => ({
              action: h.action,
              oldConfidence: h.old_confidence,
              newConfidence: h.new_confidence,
              observation: h.observation,
              createdAt: h.created_at,
              source: h.source,
              evidence: h.evidence,
            })),
          });
          id = written.id;
          if (vector && deps.embedding.model) {
            deps.search.putVectors(
              [{ memoryId: id, vector: toBlob(vector) }],
              deps.embedding.model,
              vector.length,
              now,
            );
          }
          if (r.superseded_by !== null || r.merged_into !== null)
            memoryLinks.push({ id, supersededBy: r.superseded_by, mergedInto: r.merged_into });
          history.forEach((h, i) => {
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
          why: note,
        });
      }
    };
    if (dryRun) apply();
    else portability.transaction(apply);
    done += todo.length;
    opts.onProgress?.(done, total);
  };

  const importService = (n: number, s: ServiceLine) => {
    let name: string | null;
    try {
      name = validateService(s.name);
    } catch (err) {
      return emit(refuse(n, 'service', (err as Error).message));
    }
    if (name === null) return emit(refuse(n, 'service', 'name: a service needs a name'));
    const current = deps.services.get(name);
    const item = (action: ImportAction, why: string): ImportItem => ({
      line: n,
      action,
      kind: 'service',
      memoryId: null,
      text: `${name}: ${s.description}`,
      why,
    });
    if (
      current?.description === s.description &&
      current.descriptionSource === s.description_source
    ) {
      return emit(item('skipped', `${name} is already described so`));
    }
    const source = s.description_source ?? 'operator';
    if (dryRun) return emit(item('created', `describes ${name} (${source})`));
    const written = deps.services.describe(name, s.description, source, deps.now());
    emit(
      written
        ? item('created', `describes ${name} (${source})`)
        : item('skipped', `${name} has a description that outranks this one`),
    );
  };

  for await (const { n, text } of lines) {
    report.lines = n;
    if (text.trim() === '') continue;
    if (!header) {
      const parsed = parseJson(text);
      const format =
        parsed.ok && typeof parsed.value === 'object' && parsed.value !== null
          ? (parsed.value as { format?: unknown }).format
          : undefined;
      if (format !== FORMAT) {
        throw new AppError(
          'invalid_input',
          typeof format === 'string' && format.startsWith('watchkeeper-memory/')
            ? `line ${n}: format "${format}" is not one this watchkeeper reads (${FORMAT})`
            : `line ${n}: not a watchkeeper memory export (the first line must be {"format":"${FORMAT}", ...})`,
          { data: { field: 'format' } },
        );
      }
      const count = parsed.ok ? (parsed.value as { memories?: unknown }).memories : undefined;
      total = typeof count === 'number' ? count : 0;
      header = true;
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
      else importService(n, s.data);
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
    let service: string | null;
    let words: string;
    try {
      service = validateService(m.data.service);
      words = validateObservation(m.data.text);
    } catch (err) {
      if (!isAppError(err)) throw err;
      emit(refuse(n, 'memory', err.message.replace(/^observation:/, 'text:')));
      continue;
    }
    batch.push({
      n,
      record: m.data,
      service,
      text: words,
      key: memoryKey({ ...m.data, service, text: words }),
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

function refuse(n: number, kind: ImportItem['kind'], why: string): ImportItem {
  return { line: n, action: 'refused', kind, memoryId: null, text: null, why };
}
