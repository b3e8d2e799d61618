/**
 * Query words matching more than a quarter of the memories ("svc" when every service is svc-N,
 * the "s" of `curl -s` in a store of chat turns). BM25 weighs such a word at a seventh of a rare
 * one or less (its idf, log((N - n) / n), is at most log 3; FTS5 clamps it to almost nothing past
 * half), yet matching it makes the ranking score every row it is in: 40,000 to 100,000 rows for
 * one word of a tool call, 50-180 ms at 100,000 memories. The search leaves them out. A word is
 * counted once, stopping at the quarter, and counted again once the table has grown or shrunk by
 * a tenth. Small stores keep every word: there such a word is a handful of rows, and may be the
 * point. A word counts where it is said beside a memory too (its context: the match reads those
 * columns). How many memories hold a word themselves weighs it in the search's evidence.
 */
import type Database from 'better-sqlite3';

import type { Db } from '../engine.js';

/** The columns of what a memory holds itself (memories_fts also has its context, near and far). */
const OWN_COLUMNS = '{observation service category description}';
/** Below this many rows no word is left out. */
const MIN_ROWS = 1000;
/** Words remembered at once (a tool call brings new ones: commands, paths). */
const MAX_WORDS = 4096;

/**
 * How many memories hold each word (counted up to a quarter of the table and one more: past
 * that a word is common, its exact count does not matter), and how many memories there are: the
 * words' weights in the search's evidence (knowledge/search-rank.ts). `matched` counts the rows
 * each word matches, context included (a memory's near and far columns): the common ones are
 * left out of the match, whose cost is the rows it matches.
 */
export function wordCounts(fts: () => Db | Database.Database) {
  const known = new Map<string, [own: number, matched: number]>();
  let rows = 0;
  return (
    words: readonly string[],
  ): { rows: number; counts: Map<string, number>; matched: Map<string, number> } => {
    const db = fts();
    const size =
      (db.prepare('SELECT max(rowid) AS n FROM memories_fts').get() as { n: number | null }).n ?? 0;
    if (size > rows * 1.1 || size < rows * 0.9 || known.size > MAX_WORDS) {
      known.clear();
      rows = size;
    }
    const cap = rows < MIN_ROWS ? rows : Math.floor(rows / 4) + 1;
    const count = db.prepare(
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)',
    );
    const n = (match: string) => (count.get(match, cap) as { n: number }).n;
    const counts = new Map<string, number>();
    const matched = new Map<string, number>();
    for (const word of words) {
      let c = known.get(word);
      if (c === undefined) {
        // A memory's own columns: a word said beside a memory (its context) is not in it.
        c = [n(`${OWN_COLUMNS} : "${word}"`), n(`"${word}"`)];
        known.set(word, c);
      }
      counts.set(word, c[0]);
      matched.set(word, c[1]);
    }
    return { rows, counts, matched };
  };
}

/** Of these counts, the words matching more than a quarter of a table of MIN_ROWS rows or more. */
export function commonOf(found: {
  rows: number;
  matched: ReadonlyMap<string, number>;
}): Set<string> {
  const out = new Set<string>();
  if (found.rows < MIN_ROWS) return out;
  const quarter = Math.floor(found.rows / 4);
  for (const [word, n] of found.matched) if (n > quarter) out.add(word);
  return out;
}
