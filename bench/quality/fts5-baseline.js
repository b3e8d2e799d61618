/**
 * The baseline every retrieval figure stands beside: a plain SQLite FTS5 table (`porter
 * unicode61`) over the same documents, queried with the question's words minus common English
 * stop words, OR-ed and ranked by FTS5's bm25(). Built here, apart from the product's own code,
 * so that a change there can never move the baseline.
 */
import Database from 'better-sqlite3';

const STOP_WORDS = new Set(
  `a about after again all also am an and any are as at be because been before being both but by
  can could did do does doing done during each else ever for from get got had has have having he
  her here hers him his how i if in into is it its just me might more most my no nor not now of
  off on once only or other our out over own she should so some such than that the their them
  then there these they this those through to too under until up very was we were what when where
  which while who whom why will with would you your yours`.split(/\s+/),
);

/** The query's content words, each quoted, OR-ed (no FTS5 operator can slip through). */
export function baselineQuery(text) {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (w) => !STOP_WORDS.has(w),
  );
  return [...new Set(words)].map((w) => `"${w}"`).join(' OR ');
}

/** An in-memory index of `docs` ({id, text, group}); `search(q, k, group)` -> ids, best first. */
export function fts5Index(docs) {
  const db = new Database(':memory:');
  db.exec(
    `CREATE VIRTUAL TABLE docs USING fts5(body, grp UNINDEXED, tokenize = 'porter unicode61')`,
  );
  const insert = db.prepare('INSERT INTO docs (rowid, body, grp) VALUES (?, ?, ?)');
  const ids = [];
  db.transaction(() => {
    for (const d of docs) {
      ids.push(d.id);
      insert.run(ids.length, d.text, d.group ?? '');
    }
  })();
  const find = db.prepare(
    'SELECT rowid FROM docs WHERE docs MATCH ? AND grp = ? ORDER BY bm25(docs), rowid LIMIT ?',
  );
  return {
    search(text, k, group = '') {
      const q = baselineQuery(text);
      if (q === '') return [];
      return find.all(q, group, k).map((r) => ids[r.rowid - 1]);
    },
    close: () => db.close(),
  };
}
