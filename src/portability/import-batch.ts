/**
 * One batch of an import: each record is checked against this store's history (a tombstone, a
 * memory here as it is or was, an earlier import) and the rest are embedded and judged by the
 * memory service, then applied in one transaction (import-apply.ts).
 */
import { applyDecided, type Decided } from './import-apply.js';
import { historyVerdicts } from './import-history.js';
import { type ImportRun, type Pending, skip } from './import-run.js';

export async function importBatch(run: ImportRun, todo: Pending[]): Promise<void> {
  const { deps, dryRun, emit, idMap, keysSeen, maxIdBefore } = run;
  const { portability, memory } = deps;
  const known = (p: Pending, id: number | null, why: string) => {
    if (id !== null && p.record.id !== undefined) idMap.set(p.record.id, id);
    emit(skip(p, id, why));
  };
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
  const decided: Decided[] = [];
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
  const apply = () => applyDecided(run, decided, recognised);
  if (dryRun) apply();
  else portability.transaction(apply);
}
