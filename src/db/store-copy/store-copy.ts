/**
 * `migrate-store`: copies every table of a SQLite store into the fleet's PostgreSQL database
 * under an instance name. Ids are offset past what the target already holds (and the target's
 * sequences moved past the copy's range first, so that running instances never take one of its
 * ids); every reference follows. Tables go in reference order, in batches; each batch commits
 * together with the copy's cursor, so that an interrupted copy resumes where it stopped.
 */
import { AppError } from '../../errors.js';
import { type SourceTable } from './store-copy-schema.js';
import {
  highestId,
  markCopyFinished,
  raiseSequence,
  readCopy,
  type TargetSchema,
} from './store-copy-target.js';
import { beginCopy, loadPlan, sourceFacts } from './store-copy-plan.js';
import { copyTable, CopyStopped } from './store-copy-table.js';
import type { CopyPlan, StoreCopyOptions, StoreCopyResult } from './store-copy-types.js';

export { loadPlan, prepareCopy, sourceKeyOf, writeColumns } from './store-copy-plan.js';
export type { CopyPlan, StoreCopyOptions, StoreCopyResult, TableCopy } from './store-copy-types.js';

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
