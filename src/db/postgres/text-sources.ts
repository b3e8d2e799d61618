/**
 * The full-text tables of a SQLite store, as this instance's local index rebuilds them from the
 * shared PostgreSQL rows (local-text-index.ts): the same FTS5 columns and tokenizers as the SQLite
 * migrations declare (0006, 0010, 0014, 0023), and the PostgreSQL statements that read what each row
 * holds, so that a match and its bm25 rank are the same on both engines.
 */

export type TextTable =
  'memories_fts' | 'ideas_fts' | 'spans_fts' | 'events_fts' | 'event_groups_fts';

export interface TextSource {
  /** The FTS5 columns (the row id is the source row's id). */
  columns: readonly string[];
  tokenize: string;
  /**
   * A SELECT of `id` and the columns for the ids of `$1` (a bigint[]), for the rows that exist,
   * and any other row their change changed (a memory's neighbours). Kept in step by the triggers
   * of migrations/postgres/0003_search_cursor.sql.
   */
  byIds: string;
  /** The same for every row after the id `$1`, in id order, `$2` at most (the first load). */
  after: string;
}

/**
 * The observation of the memory `offset` places before (`<`) or after (`>`) m in its context: of
 * the same service (or none, a branch of its own so that both read idx_memories_neighbours),
 * scope and source.
 */
const beside = (side: '<' | '>', offset: 0 | 1) => {
  const order = `ORDER BY p.id${side === '<' ? ' DESC' : ''} LIMIT 1 OFFSET ${offset}`;
  const rest = `p.scope = m.scope AND p.source = m.source AND p.id ${side} m.id ${order}`;
  return `coalesce((SELECT p.observation FROM memories p WHERE p.service = m.service AND ${rest}),
    (SELECT p.observation FROM memories p
      WHERE m.service IS NULL AND p.service IS NULL AND ${rest}))`;
};

/** The sources whose memories were learned in order with others, and have context. */
const IN_ORDER = `m.source IN ('conversation', 'import')`;

/**
 * A memory is indexed with its service ('general' when none), category, what its service is, and
 * its near and far context when it was learned in order with others: the memories beside it of
 * the same service, scope and source (SQLite's memory_context view and memories_index_* and
 * services_index_* triggers).
 */
const MEMORY_ROWS = `SELECT m.id, m.observation, coalesce(m.service, 'general') AS service,
  m.category, coalesce(s.description, '') AS description,
  CASE WHEN ${IN_ORDER} THEN concat_ws(' ', ${beside('<', 0)}, ${beside('>', 0)}) ELSE '' END
    AS near,
  CASE WHEN ${IN_ORDER} THEN concat_ws(' ', ${beside('<', 1)}, ${beside('>', 1)}) ELSE '' END
    AS far
  FROM memories m LEFT JOIN services s ON s.name = m.service`;

/** An idea with the words around it (idea_context: SQLite's turn, near and far columns). */
const IDEA_ROWS = `SELECT i.id, i.content, coalesce(c.turn, '') AS turn,
  coalesce(c.near, '') AS near, coalesce(c.far, '') AS far
  FROM ideas i LEFT JOIN idea_context c ON c.idea_id = i.id`;

const SPAN_ROWS = `SELECT s.id, s.name, coalesce(s.summary, '') AS summary FROM spans s`;
const EVENT_ROWS = 'SELECT e.id, e.message, e.service FROM events e';
const GROUP_ROWS = 'SELECT g.id, g.message, g.service FROM event_groups g';

function source(
  rows: string,
  alias: string,
  columns: readonly string[],
  tokenize: string,
): TextSource {
  return {
    columns,
    tokenize,
    byIds: `${rows} WHERE ${alias}.id = ANY($1::bigint[])`,
    after: `${rows} WHERE ${alias}.id > $1 ORDER BY ${alias}.id LIMIT $2`,
  };
}

export const TEXT_SOURCES: Record<TextTable, TextSource> = {
  memories_fts: {
    ...source(
      MEMORY_ROWS,
      'm',
      ['observation', 'service', 'category', 'description', 'near', 'far'],
      'porter unicode61',
    ),
    // A memory changed, and the memories beside it, whose context it is (a deleted one's are
    // stamped by migration 0010's trigger).
    byIds: `${MEMORY_ROWS} WHERE m.id IN (SELECT unnest($1::bigint[])
      UNION SELECT n.id FROM memories x
        CROSS JOIN LATERAL wk_memory_neighbours(x.service, x.scope, x.source, x.id) n
        WHERE x.id = ANY($1::bigint[]))`,
  },
  ideas_fts: source(IDEA_ROWS, 'i', ['content', 'turn', 'near', 'far'], 'porter unicode61'),
  spans_fts: source(SPAN_ROWS, 's', ['name', 'summary'], 'porter unicode61'),
  events_fts: source(EVENT_ROWS, 'e', ['message', 'service'], 'unicode61'),
  event_groups_fts: source(GROUP_ROWS, 'g', ['message', 'service'], 'unicode61'),
};
