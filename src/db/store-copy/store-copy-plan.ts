/**
 * A copy's plan: the source's tables checked against the target, the copy begun (offsets fixed
 * and the sequences moved past its range, in one transaction), and the plan read back from the
 * copy's record, as both the copy and its verification see it.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';

import { AppError } from '../../errors.js';
import { copyOrder, readSourceTables, type SourceTable } from './store-copy-schema.js';
import {
  type CopyRecord,
  highestId,
  insertCopy,
  type Queryable,
  quoteIdent,
  raiseSequence,
  readConflicts,
  readTableRecords,
  readTargetSchema,
  requireCopyTables,
  type TableRecord,
  type TargetSchema,
} from './store-copy-target.js';
import { type IdMapping, keyText, type Row, type TargetColumn } from './store-copy-values.js';
import type { CopyPlan, StoreCopyOptions } from './store-copy-types.js';

/** The target's columns a table is written to, in source column order (plus `instance`). */
export function writeColumns(t: SourceTable, target: TargetSchema): TargetColumn[] {
  const cols = target.columns.get(t.name)!;
  const out = t.columns.map((c) => cols.get(c.name)!);
  const instance = cols.get('instance');
  if (instance && !t.columns.some((c) => c.name === 'instance')) out.push(instance);
  return out;
}

/** Refuses a target that lacks a table or a column of the store (migrated to another version). */
function checkTarget(tables: SourceTable[], target: TargetSchema): void {
  for (const t of tables) {
    const cols = target.columns.get(t.name);
    if (!cols) {
      throw new AppError(
        'copy_failed',
        `the target database has no table ${t.name}: migrate it to this version of watchkeeper first`,
      );
    }
    for (const c of t.columns) {
      const col = cols.get(c.name);
      if (!col || col.generated) {
        throw new AppError(
          'copy_failed',
          `the target database's table ${t.name} has no column ${c.name} to write: migrate it to this version of watchkeeper first`,
        );
      }
    }
  }
}

export function sourceFacts(
  db: Database.Database,
  t: SourceTable,
): { rows: number; maxId: number } {
  const q = quoteIdent(t.from);
  const r = db
    .prepare(`SELECT count(*) AS rows, ${t.hasId ? 'max(id)' : '0'} AS maxId FROM ${q}`)
    .get() as { rows: number; maxId: number | null };
  return { rows: r.rows, maxId: r.maxId ?? 0 };
}

/** Starts a copy: offsets fixed and the sequences moved past its range, in one transaction. */
export async function beginCopy(
  o: StoreCopyOptions,
  tables: SourceTable[],
  target: TargetSchema,
): Promise<void> {
  const client = await o.pool.connect();
  try {
    await client.query('BEGIN');
    const withId = tables.filter((t) => t.hasId && target.columns.get(t.name)?.has('id'));
    // Writers wait (readers do not) while the offsets are read and the ranges reserved.
    if (withId.length > 0) {
      await client.query(
        `LOCK TABLE ${withId.map((t) => quoteIdent(t.name)).join(', ')} IN EXCLUSIVE MODE`,
      );
    }
    const records: TableRecord[] = [];
    for (const t of tables) {
      const facts = sourceFacts(o.source, t);
      let idOffset = 0;
      if (withId.includes(t)) {
        idOffset = await highestId(client, t.name);
        await raiseSequence(client, t.name, idOffset + facts.maxId);
      }
      records.push({
        table: t.name,
        idOffset,
        sourceMax: facts.maxId,
        sourceRows: facts.rows,
        cursor: null,
        copied: 0,
        done: false,
      });
    }
    const record: CopyRecord = {
      instance: o.instance,
      source: o.sourceName,
      startedAt: o.now(),
      finishedAt: null,
    };
    await insertCopy(client, record, records);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** Reads the copy's record and everything derived from it. */
export async function loadPlan(
  db: Queryable,
  tables: SourceTable[],
  target: TargetSchema,
  instance: string,
): Promise<CopyPlan> {
  const records = new Map((await readTableRecords(db, instance)).map((r) => [r.table, r]));
  const conflicts = new Map<string, Set<string>>();
  const mapping: IdMapping = { offsets: new Map(), mapped: new Map(), instance };
  for (const r of records.values()) mapping.offsets.set(r.table, r.idOffset);
  for (const c of await readConflicts(db, instance)) {
    let keys = conflicts.get(c.table);
    if (!keys) conflicts.set(c.table, (keys = new Set()));
    keys.add(c.sourceKey);
    if (c.targetId !== null) {
      let ids = mapping.mapped.get(c.table);
      if (!ids) mapping.mapped.set(c.table, (ids = new Map()));
      ids.set((JSON.parse(c.sourceKey) as string[]).map(Number)[0]!, c.targetId);
    }
  }
  const order = copyOrder(tables, target.foreignKeys);
  return { tables, order, target, records, conflicts, mapping };
}

/** The key a row is known by in the copy record: the id, or the primary key's values. */
export function sourceKeyOf(t: SourceTable, cols: Map<string, TargetColumn>) {
  return (row: Row): string => keyText(row, t.key, cols);
}

/**
 * The source's tables, checked against the target (every table and column present, the copy
 * record there). The target's schema is read once here for the copy and its verification.
 */
export async function prepareCopy(
  source: Database.Database,
  pool: pg.Pool,
): Promise<{ tables: SourceTable[]; target: TargetSchema }> {
  await requireCopyTables(pool);
  const target = await readTargetSchema(pool);
  const tables = readSourceTables(source).filter(
    (t) => !t.fromFullText || target.columns.has(t.name),
  );
  checkTarget(tables, target);
  return { tables, target };
}
