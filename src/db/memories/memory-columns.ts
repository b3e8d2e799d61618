/**
 * The memories table's columns as rows, its list filters as SQL, and which instance sees which
 * memories (the visibility filter is left out where a lone sidecar sees every memory anyway).
 */
import type { Db } from '../engine.js';
import { FLEET, type MemoryFilter, type MemoryRow } from './memory-types.js';

export const COLUMNS = `id, service, category, observation, confidence, base_confidence AS baseConfidence,
  active, pinned, created_at AS createdAt, updated_at AS updatedAt,
  last_reinforced_at AS lastReinforcedAt, session_id AS sessionId, tier,
  superseded_by AS supersededBy, last_surfaced_at AS lastSurfacedAt, surface_count AS surfaceCount,
  importance, importance_boost AS importanceBoost, source, source_ref AS sourceRef, scope,
  archived_at AS archivedAt, archive_reason AS archiveReason, access_count AS accessCount,
  last_accessed_at AS lastAccessedAt, instance`;

/** COLUMNS qualified with the alias `m` (json_each has an `id` column of its own). */
export const COLUMNS_OF_M = COLUMNS.replace(/(^|,\s*)(\w+)/g, '$1m.$2');

export type RawMemory = Omit<MemoryRow, 'active' | 'pinned'> & { active: number; pinned: number };

export function fromRaw(raw: RawMemory): MemoryRow {
  return { ...raw, active: raw.active === 1, pinned: raw.pinned === 1 };
}

export function whereOf(filter: MemoryFilter): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (clause: string, value: string | number) => {
    where.push(clause);
    params.push(value);
  };
  if (filter.service === null) where.push('service IS NULL');
  else if (filter.service !== undefined) add('service = ?', filter.service);
  if (filter.category) add('category = ?', filter.category);
  const status = filter.status ?? 'active';
  if (status !== 'all') where.push(status === 'active' ? 'active = 1' : 'active = 0');
  // A literal, so that the partial index of pinned memories can serve it.
  if (filter.pinned !== undefined) where.push(filter.pinned ? 'pinned = 1' : 'pinned = 0');
  if (filter.importance) add('importance = ?', filter.importance);
  if (filter.archived !== undefined)
    where.push(filter.archived ? 'archived_at IS NOT NULL' : 'archived_at IS NULL');
  // One statement text whatever the number of scopes: the list goes in as a JSON array.
  // `+scope`: a row filter, never the index to read by (the scope index would make SQLite sort
  // all 100,000 rows instead of reading the list order from its index: 4 ms -> 60 ms).
  if (filter.scopes !== undefined)
    add('+scope IN (SELECT value FROM json_each(?))', JSON.stringify(filter.scopes));
  // Row filters like the scope (`+`): the order of the list comes from its own index (reading by
  // the instance index would sort every row of a large instance: 1 ms -> 50 ms at 100,000).
  if (filter.instance !== undefined) add('+instance = ?', filter.instance);
  if (filter.visibleTo !== undefined) add(`+instance IN (?, '${FLEET}')`, filter.visibleTo);
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

/**
 * Whether any memory belongs to an instance other than `instance` and the fleet: three range
 * probes of the instance index. When none does (a lone sidecar), what the instance sees is every
 * memory, and the visibility filter can be left out of the SQL (SQLite would otherwise read a
 * 100,000-row list through the instance index).
 */
export function otherInstancesProbe(db: Db): (instance: string) => boolean {
  // PostgreSQL is a fleet's store: the filter is kept (a row filter it applies cheaply), and no
  // read pays a round trip to ask first.
  if (db.engine === 'postgres') return () => true;
  const probe = db.prepare(`SELECT EXISTS (SELECT 1 FROM memories WHERE instance < ?)
    OR EXISTS (SELECT 1 FROM memories WHERE instance > ? AND instance < ?)
    OR EXISTS (SELECT 1 FROM memories WHERE instance > ?) AS n`);
  return (instance) => {
    const [low, high] = instance < FLEET ? [instance, FLEET] : [FLEET, instance];
    return Boolean((probe.get(low, low, high, high) as { n: number | boolean }).n);
  };
}

/** The filter without `visibleTo` when the instance sees every memory anyway. */
export function withVisibility<F extends { visibleTo?: string }>(
  filter: F,
  hasOthers: (instance: string) => boolean,
): F {
  if (filter.visibleTo === undefined || hasOthers(filter.visibleTo)) return filter;
  const rest = { ...filter };
  delete rest.visibleTo;
  return rest;
}

/**
 * `service IS ?` written so that an index serves it on both engines: a service's memories by
 * `service = ?`, the general ones by `service IS NULL`. PostgreSQL reads `IS ?` as
 * `IS NOT DISTINCT FROM`, which no index serves: every observation and every group of a session's
 * block read all the memories (2.7 ms each at 20,000).
 */
export function serviceIs(service: string | null): { sql: string; params: string[] } {
  return service === null
    ? { sql: 'service IS NULL', params: [] }
    : { sql: 'service = ?', params: [service] };
}
