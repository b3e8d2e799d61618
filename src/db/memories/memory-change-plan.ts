/**
 * The statements of memory changes, computed from the rows as read: one UPDATE row per memory and
 * a history row per change, each batch of any size as one statement (its rows as one JSON
 * parameter, `json_each`). The store runs them in the transaction that read the rows, or awaited
 * in one of their own (memory-writes.ts).
 */
import { type Db, type WriteStep } from '../engine.js';
import type { MemoryChange, MemoryRow } from './memory-types.js';

/** A JSON batch's field `key` as SQL, cast so that both engines read the same value. */
export const field = (key: string, type?: 'BIGINT' | 'REAL' | 'TEXT') =>
  type ? `CAST(json_extract(value, '$.${key}') AS ${type})` : `json_extract(value, '$.${key}')`;
export const ID = field('id', 'BIGINT');

/** memory_history rows from a JSON batch: one element per row, in order. */
const HISTORY_FROM_BATCH = `INSERT INTO memory_history (memory_id, action, old_confidence,
  new_confidence, observation, session_id, created_at, related_memory_id, source, evidence)
  SELECT ${ID}, ${field('action')}, ${field('old', 'REAL')}, ${field('new', 'REAL')},
    ${field('observation')}, ${field('sessionId', 'BIGINT')}, ${field('at', 'BIGINT')},
    ${field('related', 'BIGINT')}, ${field('source')}, ${field('evidence')}
  FROM json_each(?) ORDER BY key`;

export interface HistoryEntry {
  id: number;
  action: string;
  old: number | null;
  new: number | null;
  observation: string | null;
  sessionId: number | null;
  at: number;
  related: number | null;
  source: string | null;
  evidence: string | null;
}

/** The values of a memory change, each as the UPDATE reads it: [key, SQL type, column name]. */
const UPDATE_VALUES: readonly [string, 'BIGINT' | 'REAL' | 'TEXT', string][] = [
  ['id', 'BIGINT', 'n_id'],
  ['confidence', 'REAL', 'n_confidence'],
  ['active', 'BIGINT', 'n_active'],
  ['observation', 'TEXT', 'n_observation'],
  ['pinned', 'BIGINT', 'n_pinned'],
  ['resetBase', 'BIGINT', 'n_reset_base'],
  ['nextDecayAt', 'BIGINT', 'n_next_decay_at'],
  ['superseded', 'BIGINT', 'n_superseded'],
  ['related', 'BIGINT', 'n_related'],
  ['importance', 'TEXT', 'n_importance'],
  ['importanceBoost', 'REAL', 'n_importance_boost'],
  ['archive', 'BIGINT', 'n_archive'],
  ['archiveReason', 'TEXT', 'n_archive_reason'],
  ['mergedInto', 'BIGINT', 'n_merged_into'],
  ['at', 'BIGINT', 'n_at'],
  // REAL: a time stored with a fraction of a millisecond (a clock other than Date.now wrote it)
  // compares equal to itself, where a BIGINT cast would drop the fraction and see a change.
  ['expectAt', 'REAL', 'n_expect_at'],
  ['expectConfidence', 'REAL', 'n_expect_confidence'],
];

/**
 * The UPDATE of memory changes, their values read by `value` from the rows of `from` (a JSON
 * batch, or none: named parameters). Its columns are named n_* so that no name is both the
 * values' and the table's. A row changes only while it is as it was read (its last change's time
 * and confidence): a write awaited outside the reading transaction learns that another instance
 * changed the row in between, and reads again.
 */
const updateFrom = (
  value: (key: string, type: 'BIGINT' | 'REAL' | 'TEXT') => string,
  from: string,
) =>
  `UPDATE memories SET confidence = n_confidence, active = n_active,
    observation = COALESCE(n_observation, observation), pinned = COALESCE(n_pinned, pinned),
    base_confidence = CASE WHEN n_reset_base = 1 THEN n_confidence ELSE base_confidence END,
    last_reinforced_at = CASE WHEN n_reset_base = 1 THEN n_at ELSE last_reinforced_at END,
    next_decay_at = COALESCE(n_next_decay_at, next_decay_at),
    superseded_by = CASE WHEN n_superseded = 1 THEN n_related ELSE superseded_by END,
    importance = COALESCE(n_importance, importance),
    importance_boost = COALESCE(n_importance_boost, importance_boost),
    archived_at = CASE WHEN n_active = 1 OR n_archive = 2 THEN NULL
      WHEN n_archive = 1 THEN n_at ELSE archived_at END,
    archive_reason = CASE WHEN n_active = 1 OR n_archive = 2 THEN NULL
      WHEN n_archive = 1 THEN n_archive_reason ELSE archive_reason END,
    merged_into = COALESCE(n_merged_into, merged_into),
    updated_at = n_at
    FROM (SELECT ${UPDATE_VALUES.map(([key, type, name]) => `${value(key, type)} AS ${name}`).join(', ')}${from}) AS batch
    WHERE id = n_id AND updated_at = n_expect_at
      AND abs(confidence - n_expect_confidence) < 0.000001`;

export function changeStatements(db: Db) {
  return {
    insertHistories: db.prepare(HISTORY_FROM_BATCH),
    update: db.prepare(updateFrom(field, ' FROM json_each(?)')),
    // One memory by point statements: under PostgreSQL's serializable transactions they lock
    // that row, where a batch's read may scan the table, and two instances reinforcing at once
    // would then conflict on every write.
    updateOne: db.prepare(updateFrom((key, type) => `CAST(@${key} AS ${type})`, '')),
  };
}

export type ChangeStatements = ReturnType<typeof changeStatements>;

/** The history rows as one step (none for none). */
export function historySteps(s: ChangeStatements, entries: readonly HistoryEntry[]): WriteStep[] {
  return entries.length === 0
    ? []
    : [{ stmt: s.insertHistories, params: [JSON.stringify(entries)] }];
}

/**
 * The steps that apply `changes` to `rows` (the memories as read, by id), and how many changes
 * apply (a change of a memory that does not exist is dropped). A change with `confidenceOf`
 * gets its confidence from the row as read; a later change of the same memory starts from the
 * one before it, and the UPDATE takes the later change's values (each keeps its history row).
 */
export function planChanges(
  s: ChangeStatements,
  rows: ReadonlyMap<number, MemoryRow>,
  changes: readonly MemoryChange[],
): { steps: WriteStep[]; count: number } {
  const current = new Map(rows);
  const applied: { before: MemoryRow; change: MemoryChange }[] = [];
  for (const change of changes) {
    const before = current.get(change.id);
    if (!before) continue;
    const { confidenceOf } = change;
    const next = confidenceOf ? { ...change, confidence: confidenceOf(before) } : change;
    applied.push({ before, change: next });
    current.set(change.id, { ...before, confidence: next.confidence, active: next.active });
  }
  if (applied.length === 0) return { steps: [], count: 0 };
  const last = new Map<number, MemoryChange>();
  for (const { change } of applied) {
    const defined = Object.entries(change).filter(([, v]) => v !== undefined);
    last.set(change.id, { ...last.get(change.id), ...Object.fromEntries(defined) } as MemoryChange);
  }
  const values = [...last.values()].map((c) => {
    const read = rows.get(c.id)!;
    return {
      id: c.id,
      confidence: c.confidence,
      active: c.active ? 1 : 0,
      observation: c.observation ?? null,
      pinned: c.pinned === undefined ? null : c.pinned ? 1 : 0,
      resetBase: c.resetBase ? 1 : 0,
      nextDecayAt: c.nextDecayAt ?? null,
      superseded: c.action === 'superseded' ? 1 : 0,
      related: c.relatedMemoryId ?? null,
      importance: c.importance ?? null,
      importanceBoost: c.importanceBoost ?? null,
      archive: c.archive === undefined ? 0 : c.archive === null ? 2 : 1,
      archiveReason: c.archive?.reason ?? null,
      mergedInto: c.mergedInto ?? null,
      at: c.at,
      expectAt: read.updatedAt,
      expectConfidence: read.confidence,
    };
  });
  const update: WriteStep =
    values.length === 1
      ? { stmt: s.updateOne, params: [values[0]!], expect: 1 }
      : { stmt: s.update, params: [JSON.stringify(values)], expect: values.length };
  const history = applied.map(({ before, change: c }) => ({
    id: c.id,
    action: c.action,
    old: before.confidence,
    new: c.confidence,
    observation: c.historyObservation ?? c.observation ?? null,
    sessionId: c.sessionId ?? null,
    at: c.at,
    related: c.relatedMemoryId ?? null,
    source: c.source ?? null,
    evidence: c.evidence ?? null,
  }));
  return { steps: [update, ...historySteps(s, history)], count: applied.length };
}
