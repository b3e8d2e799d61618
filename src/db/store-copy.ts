/**
 * `migrate-store`: copies every table of a SQLite store into the fleet's PostgreSQL database
 * under an instance name. Ids are offset past what the target already holds (and the target's
 * sequences moved past the copy's range first, so that running instances never take one of its
 * ids); every reference follows. Tables go in reference order, in batches; each batch commits
 * together with the copy's cursor, so that an interrupted copy resumes where it stopped.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';

import { AppError } from '../errors.js';
import {
  conflictPolicy,
  copyOrder,
  readSourceTables,
  type SourceTable,
} from './store-copy-schema.js';
import {
  type CopyRecord,
  highestId,
  insertCopy,
  markCopyFinished,
  markTableDone,
  type Queryable,
  quoteIdent,
  raiseSequence,
  readConflicts,
  readCopy,
  readTableRecords,
  readTargetSchema,
  recordBatch,
  requireCopyTables,
  type TableRecord,
  type TargetSchema,
} from './store-copy-target.js';
import {
  type IdMapping,
  keyText,
  type Row,
  rowMapper,
  type TargetColumn,
  toParam,
} from './store-copy-values.js';

export interface StoreCopyOptions {
  /** The source store, migrated to the current version (read only is enough). */
  source: Database.Database;
  /** Names the source in the copy record: an interrupted copy resumes only from the same one. */
  sourceName: string;
  pool: pg.Pool;
  instance: string;
  now: () => number;
  /** Rows per batch (default 1,000). */
  batchSize?: number;
  /** Stop after this many batches, as if interrupted (tests). */
  maxBatches?: number;
  onProgress?: (table: string, done: number, total: number) => void;
  onTableDone?: (table: string) => void;
}

export interface TableCopy {
  table: string;
  sourceRows: number;
  /** Rows written by this run (a resumed copy's earlier runs not counted). */
  copiedNow: number;
  /** Source rows whose key the target already held (kept, or mapped onto the target's row). */
  kept: number;
  idOffset: number;
}

export interface StoreCopyResult {
  /** A copy under this instance had begun before (interrupted) and went on. */
  resumed: boolean;
  /** The copy had already finished before this run: nothing was written. */
  alreadyCopied: boolean;
  /** Every table copied (false when stopped by maxBatches). */
  complete: boolean;
  startedAt: number;
  tables: TableCopy[];
}

/** What the verification needs to see the copy as the target holds it. */
export interface CopyPlan {
  tables: SourceTable[];
  order: string[];
  target: TargetSchema;
  records: Map<string, TableRecord>;
  /** Per table, the source keys (keyText) of rows the target already held. */
  conflicts: Map<string, Set<string>>;
  mapping: IdMapping;
}

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

function sourceFacts(db: Database.Database, t: SourceTable): { rows: number; maxId: number } {
  const q = quoteIdent(t.from);
  const r = db
    .prepare(`SELECT count(*) AS rows, ${t.hasId ? 'max(id)' : '0'} AS maxId FROM ${q}`)
    .get() as { rows: number; maxId: number | null };
  return { rows: r.rows, maxId: r.maxId ?? 0 };
}

/** Starts a copy: offsets fixed and the sequences moved past its range, in one transaction. */
async function beginCopy(
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

/** The statement that reads the next batch after a cursor, in key order. */
function batchReader(db: Database.Database, t: SourceTable) {
  const q = quoteIdent(t.from);
  if (!t.withoutRowid) {
    const stmt = db.prepare(
      `SELECT rowid AS "__key", ${t.select} FROM ${q} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
    );
    return {
      read: (cursor: string | null, limit: number) =>
        stmt.all(cursor === null ? -Infinity : (JSON.parse(cursor) as number), limit) as Row[],
      cursorOf: (row: Row) => JSON.stringify(row.__key),
    };
  }
  const keys = t.key.map(quoteIdent).join(', ');
  const first = db.prepare(`SELECT * FROM ${q} ORDER BY ${keys} LIMIT ?`);
  const next = db.prepare(
    `SELECT * FROM ${q} WHERE (${keys}) > (${t.key.map(() => '?').join(', ')}) ORDER BY ${keys} LIMIT ?`,
  );
  return {
    read: (cursor: string | null, limit: number) =>
      (cursor === null
        ? first.all(limit)
        : next.all(...(JSON.parse(cursor) as unknown[]), limit)) as Row[],
    cursorOf: (row: Row) => JSON.stringify(t.key.map((k) => row[k])),
  };
}

/** The key a row is known by in the copy record: the id, or the primary key's values. */
export function sourceKeyOf(t: SourceTable, cols: Map<string, TargetColumn>) {
  return (row: Row): string => keyText(row, t.key, cols);
}

function insertSql(t: SourceTable, cols: TargetColumn[]): string {
  const names = cols.map((c) => quoteIdent(c.name)).join(', ');
  const arrays = cols.map((c, i) => `$${i + 1}::${c.sqlType}[]`).join(', ');
  const overriding = cols.some((c) => c.identityAlways) ? ' OVERRIDING SYSTEM VALUE' : '';
  const onConflict =
    conflictPolicy(t.name).kind === 'update'
      ? `ON CONFLICT (${t.key.map(quoteIdent).join(', ')}) DO UPDATE SET ${cols
          .filter((c) => !t.key.includes(c.name))
          .map((c) => `${quoteIdent(c.name)} = EXCLUDED.${quoteIdent(c.name)}`)
          .join(', ')}`
      : 'ON CONFLICT DO NOTHING';
  return `INSERT INTO ${quoteIdent(t.name)} (${names})${overriding}
    SELECT * FROM unnest(${arrays}) ${onConflict}
    RETURNING ${t.key.map(quoteIdent).join(', ')}`;
}

class CopyStopped extends Error {}

/** Copies one table from its cursor to its end; throws CopyStopped at the batch limit. */
async function copyTable(
  o: StoreCopyOptions,
  plan: CopyPlan,
  t: SourceTable,
  budget: { batches: number },
  copies: Map<string, number>,
): Promise<void> {
  const record = plan.records.get(t.name)!;
  const targetCols = plan.target.columns.get(t.name)!;
  const cols = writeColumns(t, plan.target);
  const mapRow = rowMapper(t, plan.mapping, targetCols.has('instance'));
  const reader = batchReader(o.source, t);
  const keyOfSource = sourceKeyOf(t, targetCols);
  const sql = insertSql(t, cols);
  const policy = conflictPolicy(t.name);
  const batchSize = o.batchSize ?? 1000;
  o.onProgress?.(t.name, record.copied, record.sourceRows);
  for (;;) {
    if (o.maxBatches !== undefined && budget.batches >= o.maxBatches) throw new CopyStopped();
    const rows = reader.read(record.cursor, batchSize);
    if (rows.length === 0) {
      await markTableDone(o.pool, o.instance, t.name);
      record.done = true;
      return;
    }
    const mapped = rows.map((r) => {
      const { __key: _key, ...row } = r;
      return mapRow(row);
    });
    const params = cols.map((c) => mapped.map((r) => toParam(r[c.name], c.kind)));
    const cursor = reader.cursorOf(rows[rows.length - 1]!);
    const client = await o.pool.connect();
    const newMappings: [number, number][] = [];
    const conflicts: { sourceKey: string; targetId: number | null }[] = [];
    try {
      await client.query('BEGIN');
      const written = await client.query<Row>(sql, params);
      if (written.rows.length < rows.length) {
        const writtenKeys = new Set(written.rows.map((r) => keyText(r, t.key, targetCols)));
        for (let i = 0; i < rows.length; i += 1) {
          const m = mapped[i]!;
          if (writtenKeys.has(keyText(m, t.key, targetCols))) continue;
          const sourceKey = keyOfSource(rows[i]!);
          if (policy.kind === 'fail' || policy.kind === 'update') {
            throw new AppError(
              'copy_failed',
              `cannot copy ${t.name}: the target database already holds a row with the key ${t.key.join(', ')} = ${keyText(m, t.key, targetCols)} (written by another instance); rows of ${t.name} must be unique across the fleet`,
            );
          }
          let targetId: number | null = null;
          if (policy.kind === 'map') {
            const found = await client.query<{ id: string }>(
              policy.lookup,
              policy.params.map((p) => m[p]),
            );
            if (!found.rows[0]) {
              throw new AppError(
                'copy_failed',
                `cannot copy ${t.name} row ${sourceKey}: it conflicts with a row of the target database that cannot be found by ${policy.params.join(', ')}`,
              );
            }
            targetId = Number(found.rows[0].id);
            newMappings.push([rows[i]!.id as number, targetId]);
            if (policy.merge) {
              await client.query(policy.merge.sql, [
                targetId,
                ...policy.merge.params.map((p) => m[p]),
              ]);
            }
          }
          conflicts.push({ sourceKey, targetId });
        }
      }
      await recordBatch(client, o.instance, t.name, cursor, rows.length, conflicts);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      if (err instanceof AppError) throw err;
      const detail = (err as { detail?: string }).detail;
      throw new AppError(
        'copy_failed',
        `cannot copy ${t.name} (the ${rows.length} rows after ${record.cursor ?? 'the start'}): ${(err as Error).message}${detail ? ` (${detail})` : ''}; what was copied before is kept: run migrate-store again to resume`,
        { cause: err },
      );
    } finally {
      client.release();
    }
    budget.batches += 1;
    record.cursor = cursor;
    record.copied += rows.length;
    copies.set(t.name, (copies.get(t.name) ?? 0) + rows.length);
    if (conflicts.length > 0) {
      let keys = plan.conflicts.get(t.name);
      if (!keys) plan.conflicts.set(t.name, (keys = new Set()));
      for (const c of conflicts) keys.add(c.sourceKey);
    }
    if (newMappings.length > 0) {
      let ids = plan.mapping.mapped.get(t.name);
      if (!ids) plan.mapping.mapped.set(t.name, (ids = new Map()));
      for (const [from, to] of newMappings) ids.set(from, to);
    }
    o.onProgress?.(t.name, record.copied, record.sourceRows);
  }
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

/** Copies the store (or the rest of an interrupted copy); returns what each table got. */
export async function copyStore(
  o: StoreCopyOptions,
  prepared: { tables: SourceTable[]; target: TargetSchema },
): Promise<{ result: StoreCopyResult; plan: CopyPlan }> {
  // One copy into an instance at a time: a session lock, held on a connection of its own.
  const lock = await o.pool.connect();
  try {
    const got = await lock.query<{ ok: boolean }>(
      "SELECT pg_try_advisory_lock(hashtext('watchkeeper migrate-store'), hashtext($1)) AS ok",
      [o.instance],
    );
    if (!got.rows[0]?.ok) {
      throw new AppError(
        'busy',
        `another migrate-store is copying into instance ${o.instance} right now; wait for it to end`,
      );
    }
    try {
      return await copyLocked(o, prepared);
    } finally {
      await lock
        .query("SELECT pg_advisory_unlock(hashtext('watchkeeper migrate-store'), hashtext($1))", [
          o.instance,
        ])
        .catch(() => {});
    }
  } finally {
    lock.release();
  }
}

async function copyLocked(
  o: StoreCopyOptions,
  prepared: { tables: SourceTable[]; target: TargetSchema },
): Promise<{ result: StoreCopyResult; plan: CopyPlan }> {
  const { tables, target } = prepared;
  let existing = await readCopy(o.pool, o.instance);
  if (existing && existing.source !== o.sourceName) {
    throw new AppError(
      'copy_failed',
      `instance ${o.instance} already holds ${existing.finishedAt === null ? 'an unfinished copy' : 'a copy'} of another store (${existing.source}); choose another --instance${existing.finishedAt === null ? ', or finish that copy by running migrate-store with --from set to it' : ''}`,
    );
  }
  const resumed = existing !== null && existing.finishedAt === null;
  if (!existing) {
    await beginCopy(o, tables, target);
    existing = (await readCopy(o.pool, o.instance))!;
  }
  const plan = await loadPlan(o.pool, tables, target, o.instance);
  const byName = new Map(tables.map((t) => [t.name, t]));
  if (existing.finishedAt === null) {
    // The ranges reserved when the copy began hold the ids the source had then.
    for (const t of tables) {
      const rec = plan.records.get(t.name);
      const now = sourceFacts(o.source, t);
      if (!rec || now.maxId > rec.sourceMax) {
        throw new AppError(
          'copy_failed',
          `the store changed since this copy began (${t.name} has ${rec ? `ids past ${rec.sourceMax}` : 'appeared'}); stop the watchkeeper that uses it before copying`,
        );
      }
    }
  }
  const copies = new Map<string, number>();
  let complete = existing.finishedAt !== null;
  if (!complete) {
    const budget = { batches: 0 };
    try {
      for (const name of plan.order) {
        const rec = plan.records.get(name)!;
        if (rec.done) continue;
        await copyTable(o, plan, byName.get(name)!, budget, copies);
        o.onTableDone?.(name);
      }
      // Past every id copied, whatever the sequences were moved to when the copy began.
      for (const t of tables) {
        if (t.hasId) await raiseSequence(o.pool, t.name, await highestId(o.pool, t.name));
      }
      await markCopyFinished(o.pool, o.instance, o.now());
      complete = true;
    } catch (err) {
      if (!(err instanceof CopyStopped)) throw err;
    }
  }
  return {
    plan,
    result: {
      resumed,
      alreadyCopied: existing.finishedAt !== null,
      complete,
      startedAt: existing.startedAt,
      tables: plan.order.map((name) => {
        const rec = plan.records.get(name)!;
        return {
          table: name,
          sourceRows: rec.sourceRows,
          copiedNow: copies.get(name) ?? 0,
          kept: plan.conflicts.get(name)?.size ?? 0,
          idOffset: rec.idOffset,
        };
      }),
    },
  };
}
