/**
 * The PostgreSQL side of `migrate-store`: the target's tables, columns and foreign keys, and the
 * record of each copy (store_copies, store_copy_tables, store_copy_conflicts: migration
 * postgres/0002) that lets an interrupted copy resume with the same id offsets.
 */
import type pg from 'pg';

import { AppError } from '../../errors.js';
import { kindOfType, type TargetColumn } from './store-copy-values.js';

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface TargetSchema {
  columns: Map<string, Map<string, TargetColumn>>;
  /** [child, parent] for each foreign key between two different tables. */
  foreignKeys: [string, string][];
}

export async function readTargetSchema(db: Queryable): Promise<TargetSchema> {
  const cols = await db.query<{
    table: string;
    column: string;
    sqltype: string;
    typname: string;
    generated: boolean;
    identity: string;
  }>(`SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS sqltype,
      CASE WHEN t.typtype = 'd' THEN bt.typname ELSE t.typname END AS typname,
      a.attgenerated <> '' AS generated, a.attidentity AS identity
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attnum > 0
      AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`);
  const columns = new Map<string, Map<string, TargetColumn>>();
  for (const r of cols.rows) {
    let table = columns.get(r.table);
    if (!table) columns.set(r.table, (table = new Map()));
    table.set(r.column, {
      name: r.column,
      sqlType: r.sqltype,
      kind: kindOfType(r.typname),
      generated: r.generated,
      identityAlways: r.identity === 'a',
    });
  }
  const fks = await db.query<{ child: string; parent: string }>(`SELECT c.relname AS child,
      p.relname AS parent
    FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid
    JOIN pg_class p ON p.oid = k.confrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE k.contype = 'f' AND n.nspname = current_schema() AND c.oid <> p.oid`);
  return { columns, foreignKeys: fks.rows.map((r) => [r.child, r.parent]) };
}

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The sequence behind a table's id (serial or identity), or null. */
export async function idSequence(db: Queryable, table: string): Promise<string | null> {
  const r = await db.query<{ seq: string | null }>('SELECT pg_get_serial_sequence($1, $2) AS seq', [
    quoteIdent(table),
    'id',
  ]);
  return r.rows[0]?.seq ?? null;
}

/** The highest id the table holds or its sequence has handed out. */
export async function highestId(db: Queryable, table: string): Promise<number> {
  const seq = await idSequence(db, table);
  const r = await db.query<{ n: string | null }>(
    `SELECT GREATEST((SELECT max(id) FROM ${quoteIdent(table)}),
      ${seq ? 'pg_sequence_last_value($1::regclass)' : 'NULL'}) AS n`,
    seq ? [seq] : [],
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** Moves the table's id sequence to at least `value` (never back). */
export async function raiseSequence(db: Queryable, table: string, value: number): Promise<void> {
  const seq = await idSequence(db, table);
  if (!seq || value < 1) return;
  await db.query(
    `SELECT setval($1::regclass, GREATEST($2::bigint,
      COALESCE(pg_sequence_last_value($1::regclass), 0)))`,
    [seq, value],
  );
}

export interface CopyRecord {
  instance: string;
  source: string;
  startedAt: number;
  finishedAt: number | null;
}

export interface TableRecord {
  table: string;
  idOffset: number;
  sourceMax: number;
  sourceRows: number;
  /** The last source key copied (JSON), null before the first batch. */
  cursor: string | null;
  copied: number;
  done: boolean;
}

export interface ConflictRecord {
  table: string;
  sourceKey: string;
  targetId: number | null;
}

/** Refuses a target without the copy record (not migrated to this version). */
export async function requireCopyTables(db: Queryable): Promise<void> {
  const r = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relname IN ('store_copies', 'store_copy_tables',
       'store_copy_conflicts')`,
  );
  if (Number(r.rows[0]?.n) !== 3) {
    throw new AppError(
      'migration_failed',
      'the target database is not migrated (it has no store_copies table): run `watchkeeper migrate` with WATCHKEEPER_DATABASE_URL set to it first',
    );
  }
}

export async function readCopy(db: Queryable, instance: string): Promise<CopyRecord | null> {
  const r = await db.query<{ source: string; started_at: string; finished_at: string | null }>(
    'SELECT source, started_at, finished_at FROM store_copies WHERE instance = $1',
    [instance],
  );
  const row = r.rows[0];
  if (!row) return null;
  return {
    instance,
    source: row.source,
    startedAt: Number(row.started_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
  };
}

export async function readTableRecords(db: Queryable, instance: string): Promise<TableRecord[]> {
  const r = await db.query<{
    table_name: string;
    id_offset: string;
    source_max: string;
    source_rows: string;
    cursor: string | null;
    copied: string;
    done: boolean;
  }>('SELECT * FROM store_copy_tables WHERE instance = $1', [instance]);
  return r.rows.map((row) => ({
    table: row.table_name,
    idOffset: Number(row.id_offset),
    sourceMax: Number(row.source_max),
    sourceRows: Number(row.source_rows),
    cursor: row.cursor,
    copied: Number(row.copied),
    done: row.done,
  }));
}

export async function readConflicts(db: Queryable, instance: string): Promise<ConflictRecord[]> {
  const r = await db.query<{ table_name: string; source_key: string; target_id: string | null }>(
    'SELECT table_name, source_key, target_id FROM store_copy_conflicts WHERE instance = $1',
    [instance],
  );
  return r.rows.map((row) => ({
    table: row.table_name,
    sourceKey: row.source_key,
    targetId: row.target_id === null ? null : Number(row.target_id),
  }));
}

export async function insertCopy(db: Queryable, c: CopyRecord, tables: TableRecord[]) {
  await db.query('INSERT INTO store_copies (instance, source, started_at) VALUES ($1, $2, $3)', [
    c.instance,
    c.source,
    c.startedAt,
  ]);
  for (const t of tables) {
    await db.query(
      `INSERT INTO store_copy_tables (instance, table_name, id_offset, source_max, source_rows)
       VALUES ($1, $2, $3, $4, $5)`,
      [c.instance, t.table, t.idOffset, t.sourceMax, t.sourceRows],
    );
  }
}

export async function recordBatch(
  db: Queryable,
  instance: string,
  table: string,
  cursor: string,
  rows: number,
  conflicts: { sourceKey: string; targetId: number | null }[],
): Promise<void> {
  await db.query(
    `UPDATE store_copy_tables SET cursor = $3, copied = copied + $4
     WHERE instance = $1 AND table_name = $2`,
    [instance, table, cursor, rows],
  );
  if (conflicts.length === 0) return;
  await db.query(
    `INSERT INTO store_copy_conflicts (instance, table_name, source_key, target_id)
     SELECT $1, $2, k, t FROM unnest($3::text[], $4::bigint[]) AS c(k, t)`,
    [instance, table, conflicts.map((c) => c.sourceKey), conflicts.map((c) => c.targetId)],
  );
}

export async function markTableDone(db: Queryable, instance: string, table: string) {
  await db.query(
    'UPDATE store_copy_tables SET done = true WHERE instance = $1 AND table_name = $2',
    [instance, table],
  );
}

export async function markCopyFinished(db: Queryable, instance: string, at: number) {
  await db.query('UPDATE store_copies SET finished_at = $2 WHERE instance = $1', [instance, at]);
}
