/**
 * Writing one batch's judged records: a duplicate reinforces (or, inactive in the file, is
 * skipped), of two that say otherwise the newer stays active, anything else is written back
 * with its fields (import-write.ts) and recorded as imported.
 */
import type { Judgement } from '../knowledge/index.js';
import { utcMinute } from './import-history.js';
import { type ImportRun, type Pending, skip } from './import-run.js';
import { writeRecord } from './import-write.js';

export interface Decided {
  p: Pending;
  vector: Float32Array | null;
  judged: Judgement;
}

export function applyDecided(
  run: ImportRun,
  decided: Decided[],
  recognised: { key: string; id: number }[],
): void {
  const { deps, dryRun, policy, emit, idMap, memoryLinks, historyLinks } = run;
  const { portability, memory } = deps;
  const now = deps.now();
  if (!dryRun)
    for (const k of recognised) portability.recordImport('watchkeeper', k.key, 'memory', k.id, now);
  for (const { p, vector, judged } of decided) {
    const r = p.record;
    if (judged.kind === 'duplicate') {
      const how = `${judged.measure} ${judged.similarity.toFixed(2)}`;
      if (!dryRun) portability.recordImport('watchkeeper', p.key, 'memory', judged.memory.id, now);
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
}
