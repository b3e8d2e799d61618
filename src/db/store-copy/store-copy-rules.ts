/**
 * The store copy's rules, as data: the references the schema keeps without a declared foreign
 * key, the columns that hold session labels and instance names, and what happens when the target
 * already holds a row with the same key (per table). A new table or reference is a new entry.
 */
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
