/**
 * The check at the end of `migrate-store`: per table, the source's rows (as the copy wrote them:
 * ids offset, instance set) against the rows of this copy in the target, by count and by a
 * sha256 checksum over canonical values computed on each side. Rows the target already held
 * (kept or mapped on a conflict) are left out of both sides.
 */
import type Database from 'better-sqlite3';

import type { CopyPlan } from './store-copy.js';
import { sourceKeyOf, writeColumns } from './store-copy.js';
import type { SourceTable } from './store-copy-schema.js';
import { type Queryable, quoteIdent } from './store-copy-target.js';
import {
  canonicalRow,
  checksumBuilder,
  type Row,
  rowMapper,
  type TargetColumn,
  toParam,
} from './store-copy-values.js';

export interface TableCheck {
  table: string;
  sourceRows: number;
  targetRows: number;
  sourceChecksum: string;
  targetChecksum: string;
  ok: boolean;
}

const PAGE = 5000;

/** The source side: the checksum of the mapped rows, and their keys for the target lookup. */
function sourceSide(db: Database.Database, plan: CopyPlan, t: SourceTable, cols: TargetColumn[]) {
  const targetCols = plan.target.columns.get(t.name)!;
  const mapRow = rowMapper(t, plan.mapping, targetCols.has('instance'));
  const keyOf = sourceKeyOf(t, targetCols);
  const skip = plan.conflicts.get(t.name) ?? new Set<string>();
  const sum = checksumBuilder(t.hasId);
  const keys: unknown[][] = t.key.map(() => []);
  const order = t.withoutRowid ? t.key.map(quoteIdent).join(', ') : 'rowid';
  const rows = db
    .prepare(`SELECT ${t.select} FROM ${quoteIdent(t.from)} ORDER BY ${order}`)
    .iterate();
  for (const row of rows as Iterable<Row>) {
    if (skip.size > 0 && skip.has(keyOf(row))) continue;
    const mapped = mapRow(row);
    sum.add(canonicalRow(mapped, cols));
    if (!t.hasId) t.key.forEach((k, i) => keys[i]!.push(mapped[k]));
  }
  return { sum, keys };
}

/** The target side of a table keyed by id: the copy's id range, in id order. */
async function targetById(pg: Queryable, plan: CopyPlan, t: SourceTable, cols: TargetColumn[]) {
  const rec = plan.records.get(t.name)!;
  const sum = checksumBuilder(true);
  const list = cols.map((c) => quoteIdent(c.name)).join(', ');
  let after = rec.idOffset;
  const last = rec.idOffset + rec.sourceMax;
  for (;;) {
    const page = await pg.query<Row>(
      `SELECT ${list} FROM ${quoteIdent(t.name)} WHERE id > $1 AND id <= $2 ORDER BY id LIMIT ${PAGE}`,
      [after, last],
    );
    for (const row of page.rows) sum.add(canonicalRow(row, cols));
    if (page.rows.length < PAGE) return sum;
    after = Number(page.rows[page.rows.length - 1]!.id);
  }
}

/** The target side of a table keyed otherwise: the rows with the source's (mapped) keys. */
async function targetByKey(
  pg: Queryable,
  t: SourceTable,
  cols: TargetColumn[],
  targetCols: Map<string, TargetColumn>,
  keys: unknown[][],
) {
  const sum = checksumBuilder(false);
  const list = cols.map((c) => quoteIdent(c.name)).join(', ');
  const keyCols = t.key.map((k) => targetCols.get(k)!);
  const arrays = keyCols.map((c, i) => `$${i + 1}::${c.sqlType}[]`).join(', ');
  const sql = `SELECT ${list} FROM ${quoteIdent(t.name)}
    WHERE (${t.key.map(quoteIdent).join(', ')}) IN (SELECT * FROM unnest(${arrays}))`;
  const total = keys[0]?.length ?? 0;
  for (let from = 0; from < total; from += PAGE) {
    const params = keyCols.map((c, i) =>
      keys[i]!.slice(from, from + PAGE).map((v) => toParam(v, c.kind)),
    );
    const page = await pg.query<Row>(sql, params);
    for (const row of page.rows) sum.add(canonicalRow(row, cols));
  }
  return sum;
}

/** Checks every table of the copy; `onTable` hears each result as it comes. */
export async function verifyCopy(
  source: Database.Database,
  pg: Queryable,
  plan: CopyPlan,
  onTable?: (check: TableCheck) => void,
): Promise<TableCheck[]> {
  const checks: TableCheck[] = [];
  const byName = new Map(plan.tables.map((t) => [t.name, t]));
  for (const name of plan.order) {
    const t = byName.get(name)!;
    const targetCols = plan.target.columns.get(name)!;
    const cols = writeColumns(t, plan.target);
    const src = sourceSide(source, plan, t, cols);
    const dst = t.hasId
      ? await targetById(pg, plan, t, cols)
      : await targetByKey(pg, t, cols, targetCols, src.keys);
    const sourceChecksum = src.sum.digest();
    const targetChecksum = dst.digest();
    const check: TableCheck = {
      table: name,
      sourceRows: src.sum.rows,
      targetRows: dst.rows,
      sourceChecksum,
      targetChecksum,
      ok: src.sum.rows === dst.rows && sourceChecksum === targetChecksum,
    };
    checks.push(check);
    onTable?.(check);
  }
  return checks;
}
