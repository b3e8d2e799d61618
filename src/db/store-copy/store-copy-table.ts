/**
 * Copying one table in batches from its cursor: each batch is written with its conflicts and the
 * cursor in one transaction, so that an interrupted copy resumes where it stopped.
 */
import type Database from 'better-sqlite3';

import { AppError } from '../../errors.js';
import { conflictPolicy, type SourceTable } from './store-copy-schema.js';
import { markTableDone, quoteIdent, recordBatch } from './store-copy-target.js';
import { keyText, type Row, rowMapper, type TargetColumn, toParam } from './store-copy-values.js';
import { sourceKeyOf, writeColumns } from './store-copy-plan.js';
import type { CopyPlan, StoreCopyOptions } from './store-copy-types.js';

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

export class CopyStopped extends Error {}

/** Copies one table from its cursor to its end; throws CopyStopped at the batch limit. */
export async function copyTable(
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
