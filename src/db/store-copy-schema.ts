/**
 * What `migrate-store` copies: the tables of a SQLite store (from sqlite_master), their keys,
 * every column that names a row of another table (declared foreign keys and the references the
 * schema keeps without one), what happens when the target already holds a row with the same key,
 * and the order that puts every referenced table before the tables that reference it.
 */
import type Database from 'better-sqlite3';

/** A column whose value is the id of a row of `to` (offset with that table's ids). */
export interface IdReference {
  table: string;
  column: string;
  to: string;
  /** Only on rows where this column holds this value (a polymorphic reference). */
  when?: { column: string; equals: string };
}

/**
 * The references SQLite does not declare (no FOREIGN KEY clause, so that deleting the row keeps
 * the record, or because the column was added later), read from migrations/0001..0019. Declared
 * foreign keys are read from `pragma foreign_key_list` and need no entry here.
 */
export const UNDECLARED_REFERENCES: readonly IdReference[] = [
  // The chain summary's model gateway job (0013).
  { table: 'sessions', column: 'summary_job_id', to: 'gateway_jobs' },
  // The event's group of identical events (0014).
  { table: 'events', column: 'group_id', to: 'event_groups' },
  // Supersession (0006) and merges (0015) point at the memory that kept the meaning.
  { table: 'memories', column: 'superseded_by', to: 'memories' },
  { table: 'memories', column: 'merged_into', to: 'memories' },
  // History outlives its memory (0001, 0006), and so does a deleted memory's tombstone (0019).
  { table: 'memory_history', column: 'memory_id', to: 'memories' },
  { table: 'memory_tombstones', column: 'memory_id', to: 'memories' },
  { table: 'memory_history', column: 'related_memory_id', to: 'memories' },
  // What each session was given (0006), and the vectors of memories, ideas and spans.
  { table: 'session_memories', column: 'memory_id', to: 'memories' },
  { table: 'memory_vectors', column: 'memory_id', to: 'memories' },
  { table: 'idea_vectors', column: 'idea_id', to: 'ideas' },
  { table: 'span_vectors', column: 'span_id', to: 'spans' },
  // Conversation memory's gateway jobs and the memories an extraction made (0008).
  { table: 'conversation_summaries', column: 'job_id', to: 'gateway_jobs' },
  { table: 'extraction_windows', column: 'gate_job_id', to: 'gateway_jobs' },
  { table: 'extraction_windows', column: 'extract_job_id', to: 'gateway_jobs' },
  { table: 'conversation_memories', column: 'memory_id', to: 'memories' },
  // A watchkeeper session log indexed by the memory graph (0010).
  { table: 'graph_sessions', column: 'watchkeeper_session_id', to: 'sessions' },
  // What `import-claudeops` made of each source row, by kind (0011).
  ...(
    [
      ['session', 'sessions'],
      ['event', 'events'],
      ['memory', 'memories'],
      ['cooldown', 'cooldown_actions'],
    ] as const
  ).map(([kind, to]) => ({
    table: 'claudeops_imports',
    column: 'target_id',
    to,
    when: { column: 'kind', equals: kind },
  })),
  // What `import` and `import-mcp-memory` made of each record, by kind (0015).
  ...(
    [
      ['memory', 'memories'],
      ['observation', 'memories'],
      ['entity', 'entities'],
    ] as const
  ).map(([kind, to]) => ({
    table: 'memory_imports',
    column: 'target_id',
    to,
    when: { column: 'kind', equals: kind },
  })),
];

/**
 * The memory graph names a watchkeeper session log `wk-<session id>` (graph/sources/kind.ts):
 * these columns hold such labels, renumbered with the sessions. Other text that mentions an id
 * (gateway_jobs.ref, memories.source_ref: descriptions for people) is copied as it is.
 */
export const SESSION_LABEL_COLUMNS: readonly { table: string; column: string }[] = [
  { table: 'graph_sessions', column: 'session' },
  { table: 'graph_sessions', column: 'parent_session' },
  { table: 'index_state', column: 'session' },
  { table: 'spans', column: 'session' },
  { table: 'ideas', column: 'session' },
];

/**
 * Columns that name an instance other than a table's own `instance` column (which every copied
 * row gets): renamed to the copy's instance when set. A conversation's extraction claim
 * (migrations/0018) is held by the instance that made it.
 */
export const INSTANCE_NAME_COLUMNS: readonly { table: string; column: string }[] = [
  { table: 'conversations', column: 'extract_instance' },
];

/**
 * A row whose key the target already holds. `fail` (the default): the copy stops with the key
 * at fault (two instances' conversations with one id are two different conversations). `keep`:
 * the target's row stays and the source's is skipped (a catalog both instances know, an import
 * record, an alias). `map`: as keep, and references to the source's row point at the target's
 * (`lookup` finds it by the table's natural key; `merge` then folds the source's row in).
 */
export type ConflictPolicy =
  | { kind: 'fail' }
  | { kind: 'keep' }
  /** The target's row is overwritten with the source's (a row the target made empty). */
  | { kind: 'update' }
  | {
      kind: 'map';
      lookup: string;
      params: string[];
      /** Run with the target's id and these columns of the source row. */
      merge?: { sql: string; params: string[] };
    };

export const CONFLICT_POLICIES: Record<string, ConflictPolicy> = {
  services: { kind: 'keep' },
  memory_scopes: { kind: 'keep' },
  index_state: { kind: 'keep' },
  memory_imports: { kind: 'keep' },
  claudeops_imports: { kind: 'keep' },
  entity_aliases: { kind: 'keep' },
  entity_relations: { kind: 'keep' },
  memory_entities: { kind: 'keep' },
  idea_entities: { kind: 'keep' },
  // One entity per name (whatever the case) and type across the fleet.
  entities: {
    kind: 'map',
    lookup: 'SELECT id FROM entities WHERE lower(name) = lower($1) AND type = $2',
    params: ['name', 'type'],
  },
  // One group per service, level and message across the fleet, made and counted by the target's
  // trigger as the events arrive (see GROUPED_BY_TARGET): the source's acknowledgement is kept
  // when it is the later one.
  event_groups: {
    kind: 'map',
    lookup: 'SELECT id FROM event_groups WHERE service = $1 AND level = $2 AND message = $3',
    params: ['service', 'level', 'message'],
    merge: {
      sql: `UPDATE event_groups SET acked_at = GREATEST(acked_at, $2::bigint),
        acked_by = CASE WHEN $2::bigint > coalesce(acked_at, -1) THEN $3 ELSE acked_by END
        WHERE id = $1`,
      params: ['acked_at', 'acked_by'],
    },
  },
  idea_context: { kind: 'update' },
};

/**
 * Tables whose rows the target makes itself from another table's rows (a trigger on insert):
 * copied after that table, their rows then found there by key. PostgreSQL groups events as they
 * are written (migrations/postgres/0001), so event groups follow the events.
 */
export const GROUPED_BY_TARGET: Record<string, string> = { event_groups: 'events' };

/**
 * Text SQLite keeps only inside a full-text index that PostgreSQL keeps as a table: the words
 * around each idea of the memory graph (ideas_fts's turn, near and far columns; the target's
 * idea_context, one row per idea, made empty with the idea). Copied when the target has it.
 */
export const FROM_FULL_TEXT: readonly {
  table: string;
  from: string;
  select: string;
  columns: string[];
  key: string;
  references: IdReference[];
}[] = [
  {
    table: 'idea_context',
    from: 'ideas_fts',
    select: 'rowid AS idea_id, turn, near, far',
    columns: ['idea_id', 'turn', 'near', 'far'],
    key: 'idea_id',
    references: [{ table: 'idea_context', column: 'idea_id', to: 'ideas' }],
  },
];

export function conflictPolicy(table: string): ConflictPolicy {
  return CONFLICT_POLICIES[table] ?? { kind: 'fail' };
}

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
