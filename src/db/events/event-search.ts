/**
 * Free text typed into the Events search, as an FTS5 query over events_fts: every word must
 * occur, each as a word prefix ("jelly" finds "jellyfin"). Quoting each word keeps FTS5 syntax
 * (AND, NEAR, quotes, column filters) out of what an operator types.
 */
import { type Db, engineOf } from '../open.js';
import type { PostgresDb } from '../postgres/database.js';
import { localTextIndex } from '../postgres/local-text-index.js';

const WORD = /[\p{L}\p{N}_]+/gu;
const MAX_WORDS = 16;

/** The FTS5 query, or null when the text holds no word to look for. */
export function eventTextQuery(text: string): string | null {
  const words = (text.match(WORD) ?? []).slice(0, MAX_WORDS);
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"*`).join(' ');
}

/** A clause keeping the rows whose id is `column` that match an FTS5 query, and its parameter. */
export type TextMatch = (column: string, match: string) => [clause: string, param: string];

/**
 * How a store finds rows by their words: on SQLite in its FTS5 table; on PostgreSQL in this
 * instance's copy of the same table (postgres/local-text-index.ts), whose matching ids are handed
 * to PostgreSQL as one JSON parameter, so that a word matches the same events on both engines.
 */
export function textMatch(db: Db, table: 'events_fts' | 'event_groups_fts'): TextMatch {
  if (engineOf(db) !== 'postgres') {
    return (column, match) => [
      `${column} IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)`,
      match,
    ];
  }
  const index = localTextIndex(db as PostgresDb);
  return (column, match) => {
    const ids = index
      .current(table)
      .prepare(`SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ?`)
      .pluck()
      .all(match) as number[];
    return [`${column} IN (SELECT CAST(value AS BIGINT) FROM json_each(?))`, JSON.stringify(ids)];
  };
}
