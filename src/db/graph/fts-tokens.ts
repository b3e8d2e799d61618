/**
 * FTS5's own tokenizer, reached through a one-row table in a private in-memory database: the
 * words of a text split, folded and stemmed exactly as a full-text table with the same
 * `tokenize` option stores them. Written by hand because no library reproduces SQLite's
 * `unicode61` and `porter` byte for byte, and an in-memory ranking that must equal FTS5's
 * (graph-words.ts) cannot afford a token that differs.
 */
import Database from 'better-sqlite3';

export interface FtsTokenizer {
  /** The tokens of each text, in no particular order (a token once per occurrence). */
  tokens(texts: readonly string[]): string[][];
  close(): void;
}

export function createFtsTokenizer(tokenize = 'porter unicode61'): FtsTokenizer {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, content = '', tokenize = '${tokenize.replace(/'/g, "''")}');
    CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
  const insert = db.prepare('INSERT INTO t (rowid, x) VALUES (?, ?)');
  const read = db.prepare('SELECT doc, term FROM v');
  const clear = db.prepare("INSERT INTO t (t) VALUES ('delete-all')");
  const run = db.transaction((texts: readonly string[]) => {
    const out = texts.map((): string[] => []);
    texts.forEach((text, k) => insert.run(k + 1, text));
    for (const r of read.all() as { doc: number; term: string }[]) out[r.doc - 1]!.push(r.term);
    clear.run();
    return out;
  });
  return {
    tokens: (texts) => (texts.length === 0 ? [] : run(texts)),
    close: () => db.close(),
  };
}
