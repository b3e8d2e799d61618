/**
 * What `migrate-store` copies: the tables of a SQLite store (from sqlite_master), their keys,
 * every column that names a row of another table (declared foreign keys and the references the
 * schema keeps without one), what happens when the target already holds a row with the same key,
 * and the order that puts every referenced table before the tables that reference it.
 */
import type Database from 'better-sqlite3';

import {
  FROM_FULL_TEXT,
  GROUPED_BY_TARGET,
  type IdReference,
  UNDECLARED_REFERENCES,
} from './store-copy-rules.js';

export { conflictPolicy, type ConflictPolicy, type IdReference } from './store-copy-rules.js';

export interface SourceColumn {
  name: string;
  /** Declared type, upper case (INTEGER, TEXT, REAL, BLOB, or empty). */
  type: string;
}

export interface SourceTable {
  /** The target's table. */
  name: string;
  /** What is read from the store: its table (a full-text index for FROM_FULL_TEXT) and columns. */
  from: string;
  select: string;
  columns: SourceColumn[];
  /** The primary key's columns (`['id']` for a table keyed by an integer id). */
  key: string[];
  /** Keyed by `id INTEGER PRIMARY KEY`: its ids are offset and others may reference them. */
  hasId: boolean;
  /** A rowid table is read in rowid order; a WITHOUT ROWID one in key order. */
  withoutRowid: boolean;
  /** Every reference from this table's columns (declared and undeclared), self ones included. */
  references: IdReference[];
  /** Read from a full-text index (FROM_FULL_TEXT): left out when the target has no such table. */
  fromFullText?: boolean;
}

/** Tables the copy leaves out: SQLite's own, full-text indexes and the migration record. */
function skipped(name: string, sql: string | null, virtualNames: string[]): boolean {
  if (name.startsWith('sqlite_') || name === 'schema_migrations') return true;
  if (/^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(sql ?? '')) return true;
  // An FTS5 table's shadow tables: NAME_data, NAME_idx, NAME_content, NAME_docsize, NAME_config.
  return virtualNames.some((v) => name.startsWith(`${v}_`));
}

/** The store's tables with their columns, keys and references. */
export function readSourceTables(db: Database.Database): SourceTable[] {
  const all = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all() as { name: string; sql: string | null }[];
  const virtualNames = all
    .filter((t) => /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(t.sql ?? ''))
    .map((t) => t.name);
  const tables: SourceTable[] = [];
  for (const t of all) {
    if (skipped(t.name, t.sql, virtualNames)) continue;
    const info = db.prepare(`SELECT name, type, pk FROM pragma_table_info(?)`).all(t.name) as {
      name: string;
      type: string;
      pk: number;
    }[];
    const key = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const idColumn = info.find((c) => c.name === 'id');
    const hasId =
      key.length === 1 && key[0] === 'id' && (idColumn?.type ?? '').toUpperCase() === 'INTEGER';
    const declared = (
      db
        .prepare('SELECT "table" AS parent, "from" AS col FROM pragma_foreign_key_list(?)')
        .all(t.name) as { parent: string; col: string }[]
    ).map((f) => ({ table: t.name, column: f.col, to: f.parent }));
    tables.push({
      name: t.name,
      from: t.name,
      select: '*',
      columns: info.map((c) => ({ name: c.name, type: c.type.toUpperCase() })),
      // Without a primary key, a row is known by all its values.
      key: key.length > 0 ? key : info.map((c) => c.name),
      hasId,
      withoutRowid: /\)\s*WITHOUT\s+ROWID\s*;?\s*$/i.test(t.sql ?? ''),
      references: [...declared, ...UNDECLARED_REFERENCES.filter((r) => r.table === t.name)],
    });
  }
  for (const f of FROM_FULL_TEXT) {
    if (!virtualNames.includes(f.from)) continue;
    tables.push({
      name: f.table,
      from: f.from,
      select: f.select,
      columns: f.columns.map((name) => ({ name, type: name === f.key ? 'INTEGER' : 'TEXT' })),
      key: [f.key],
      hasId: false,
      withoutRowid: false,
      references: [...f.references],
      fromFullText: true,
    });
  }
  // A reference to a table that is not here (or not keyed by id) has nothing to offset.
  const withId = new Set(tables.filter((t) => t.hasId).map((t) => t.name));
  for (const t of tables) {
    t.references = t.references.filter(
      (r) => withId.has(r.to) && t.columns.some((c) => c.name === r.column),
    );
  }
  return tables;
}

/**
 * Referenced tables first, so that a row's references exist when it is written (and the ids a
 * conflict mapped are known). Self references are left to id order; among tables that do not
 * depend on each other, and to break a cycle, the name decides.
 */
export function copyOrder(tables: SourceTable[], extraEdges: [string, string][] = []): string[] {
  const names = new Set(tables.map((t) => t.name));
  const needs = new Map<string, Set<string>>();
  for (const t of tables) needs.set(t.name, new Set());
  const edge = (child: string, parent: string) => {
    if (child !== parent && names.has(child) && names.has(parent)) needs.get(child)!.add(parent);
  };
  const grouped = (child: string, parent: string) => GROUPED_BY_TARGET[parent] === child;
  for (const t of tables) {
    for (const r of t.references) if (!grouped(t.name, r.to)) edge(t.name, r.to);
  }
  for (const [child, parent] of extraEdges) if (!grouped(child, parent)) edge(child, parent);
  for (const [table, after] of Object.entries(GROUPED_BY_TARGET)) edge(table, after);
  const order: string[] = [];
  const done = new Set<string>();
  while (done.size < names.size) {
    const ready = [...names]
      .filter((n) => !done.has(n) && [...needs.get(n)!].every((p) => done.has(p)))
      .sort();
    const next = ready[0] ?? [...names].filter((n) => !done.has(n)).sort()[0]!;
    done.add(next);
    order.push(next);
  }
  return order;
}
