/**
 * Query words found in more than a quarter of the memories ("svc" when every service is svc-N,
 * the "s" of `curl -s` in a store of chat turns). BM25 weighs such a word at a seventh of a rare
 * one or less (its idf, log((N - n) / n), is at most log 3; FTS5 clamps it to almost nothing past
 * half), yet matching it makes the ranking score every row it is in: 40,000 to 100,000 rows for
 * one word of a tool call, 50-180 ms at 100,000 memories. The search leaves them out. A word is
 * counted once, stopping at the quarter, and counted again once the table has grown or shrunk by
 * a tenth. Small stores keep every word: there such a word is a handful of rows, and may be the
 * point.
 */
import type Database from 'better-sqlite3';

import type { Db } from '../engine.js';

/** Below this many rows no word is left out. */
const MIN_ROWS = 1000;
/** Words remembered at once (a tool call brings new ones: commands, paths). */
const MAX_WORDS = 4096;

export function commonWords(fts: () => Db | Database.Database) {
  const known = new Map<string, boolean>();
  let rows = 0;
  return (words: readonly string[]): Set<string> => {
    const db = fts();
    const size =
      (db.prepare('SELECT max(rowid) AS n FROM memories_fts').get() as { n: number | null }).n ?? 0;
    if (size > rows * 1.1 || size < rows * 0.9 || known.size > MAX_WORDS) {
      known.clear();
      rows = size;
    }
    const out = new Set<string>();
    if (rows < MIN_ROWS) return out;
    const quarter = Math.floor(rows / 4);
    const count = db.prepare(
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)',
    );
    for (const word of words) {
      let common = known.get(word);
      if (common === undefined) {
        common = (count.get(`"${word}"`, quarter + 1) as { n: number }).n > quarter;
        known.set(word, common);
      }
      if (common) out.add(word);
    }
    return out;
  };
}
