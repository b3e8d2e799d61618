/**
 * A SQLite row as `migrate-store` writes it to PostgreSQL: ids offset past the rows the target
 * already held (or mapped onto the target's own row), the instance name set, graph labels of
 * sessions renumbered; the values in the types of the target's columns; and the canonical text
 * of a value that both sides' checksums are computed over.
 */
import { createHash } from 'node:crypto';

import {
  conflictPolicy,
  INSTANCE_NAME_COLUMNS,
  SESSION_LABEL_COLUMNS,
} from './store-copy-rules.js';
import type { SourceTable } from './store-copy-schema.js';

/** A column of the target table: its SQL type (for casts) and the kind of value it holds. */
export interface TargetColumn {
  name: string;
  /** `format_type` of the column, such as bigint, text, double precision, jsonb. */
  sqlType: string;
  kind: ValueKind;
  /** Computed by the database (GENERATED ALWAYS AS ...): never written. */
  generated: boolean;
  /** GENERATED ALWAYS AS IDENTITY: an explicit value needs OVERRIDING SYSTEM VALUE. */
  identityAlways: boolean;
}

export type ValueKind = 'int' | 'float' | 'bool' | 'bytes' | 'json' | 'text';

/** The kind of a PostgreSQL type, from its name in pg_type. */
export function kindOfType(typname: string): ValueKind {
  if (['int2', 'int4', 'int8', 'oid'].includes(typname)) return 'int';
  if (['float4', 'float8', 'numeric'].includes(typname)) return 'float';
  if (typname === 'bool') return 'bool';
  if (typname === 'bytea') return 'bytes';
  if (typname === 'json' || typname === 'jsonb') return 'json';
  return 'text';
}

/** What turns source ids into target ids, fixed when the copy began. */
export interface IdMapping {
  /** The offset added to each table's ids (0 when the target held none). */
  offsets: Map<string, number>;
  /** Source id -> target id of rows that stand for a row the target already held. */
  mapped: Map<string, Map<number, number>>;
  instance: string;
}

export type Row = Record<string, unknown>;

/** The target id of a source id of `table`. */
export function targetId(m: IdMapping, table: string, id: number): number {
  return m.mapped.get(table)?.get(id) ?? id + (m.offsets.get(table) ?? 0);
}

const SESSION_LABEL = /^wk-(\d+)$/;

/** A function that maps one source row of `table` (read with its own column names). */
export function rowMapper(table: SourceTable, m: IdMapping, hasInstance: boolean) {
  const labels = SESSION_LABEL_COLUMNS.filter((l) => l.table === table.name).map((l) => l.column);
  const instanceNames = INSTANCE_NAME_COLUMNS.filter((c) => c.table === table.name).map(
    (c) => c.column,
  );
  const sessionOffset = m.offsets.get('sessions') ?? 0;
  const ownOffset = m.offsets.get(table.name) ?? 0;
  return (row: Row): Row => {
    const out: Row = { ...row };
    if (table.hasId) out.id = (row.id as number) + ownOffset;
    for (const r of table.references) {
      const v = row[r.column];
      if (typeof v !== 'number') continue;
      if (r.when && row[r.when.column] !== r.when.equals) continue;
      out[r.column] = targetId(m, r.to, v);
    }
    for (const column of labels) {
      const v = row[column];
      const match = typeof v === 'string' ? SESSION_LABEL.exec(v) : null;
      if (match) out[column] = `wk-${Number(match[1]) + sessionOffset}`;
    }
    for (const column of instanceNames) {
      if (typeof row[column] === 'string') out[column] = m.instance;
    }
    // Every copied row becomes the copy's instance's, but a memory shared with the fleet. A lone
    // store knows no fleet: its cooldown overrides (null: every instance) were about its own
    // sessions, and become the copy's instance's too.
    if (hasInstance && !(table.name === 'memories' && row.instance === 'fleet')) {
      out.instance = m.instance;
    }
    return out;
  };
}

/** A value as a query parameter for a column of this kind. */
export function toParam(v: unknown, kind: ValueKind): unknown {
  if (v === null || v === undefined) return null;
  if (kind === 'bool') return v === true || v === 1 || v === 1n || v === '1';
  if (typeof v === 'bigint') return v.toString();
  return v;
}

function sortedJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedJson);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, sortedJson((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** One value's canonical text: the same for a source value and what the target returns. */
export function canonical(v: unknown, kind: ValueKind): string | null {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'int':
      return BigInt(v as number | string | bigint).toString();
    case 'float':
      return String(Number(v));
    case 'bool':
      return v === true || v === 1 || v === 1n || v === '1' || v === 't' ? '1' : '0';
    case 'bytes':
      return Buffer.isBuffer(v) ? v.toString('hex') : String(v);
    case 'json': {
      let parsed: unknown = v;
      if (typeof v === 'string') {
        try {
          parsed = JSON.parse(v);
        } catch {
          return v;
        }
      }
      return JSON.stringify(sortedJson(parsed));
    }
    default:
      return Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  }
}

/** A row's canonical text: the canonical values of these columns, in this order. */
export function canonicalRow(row: Row, columns: TargetColumn[]): string {
  return JSON.stringify(columns.map((c) => canonical(row[c.name], c.kind)));
}

/** The canonical text of a row's key, for finding rows by key. */
export function keyText(row: Row, key: string[], columns: Map<string, TargetColumn>): string {
  return JSON.stringify(key.map((k) => canonical(row[k], columns.get(k)?.kind ?? 'text')));
}

/**
 * A table's checksum: sha256 over the rows' canonical texts in id order for a table keyed by
 * id; for one keyed otherwise (text, or several columns, whose order can differ between the
 * engines' collations), over the sorted digests of its rows.
 */
export function checksumBuilder(ordered: boolean) {
  const hash = createHash('sha256');
  const digests: Buffer[] = [];
  let rows = 0;
  return {
    add(text: string): void {
      rows += 1;
      if (ordered) hash.update(`${text}\n`);
      else digests.push(createHash('sha256').update(text).digest());
    },
    get rows(): number {
      return rows;
    },
    digest(): string {
      if (!ordered) for (const d of digests.sort(Buffer.compare)) hash.update(d);
      return hash.digest('hex');
    },
  };
}

/** Whether a conflict on this table maps ids (references to its rows must follow). */
export function mapsIds(table: string): boolean {
  return conflictPolicy(table).kind === 'map';
}
