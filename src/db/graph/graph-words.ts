/**
 * The words of ideas_fts held in memory, so that indexing a long transcript can ask "which
 * ideas are nearest this one by its words" once per new idea without FTS5 scoring every idea
 * that shares a common word (the query that made indexing quadratic). The answer is FTS5's own:
 * the same tokens (its tokenizer, fts-tokens.ts), the same statistics (rows, tokens per row,
 * rows per term) and SQLite's bm25 formula (fts5_aux.c) with the same column weights, ranked
 * best first; only the ideas that cannot reach the top are skipped (bm25-top.ts). Written by
 * hand: no library ranks exactly as FTS5.
 *
 * Kept true to the table: terms are read from FTS5 (fts5vocab) the first time a query needs
 * them and changed with every write after that. Ideas written on this connection are logged by
 * temporary triggers and caught up before each use; the words around ideas are written through
 * graph-text-search.ts, which reports them here. Anything it cannot follow (another connection's
 * commit, a deleted or reworded idea, a rolled-back transaction, a column rewritten that held
 * words) drops what it holds, and it reads the table again. SQLite only: on PostgreSQL the
 * query runs in FTS5 as before.
 */
import { bm25Top, indexOf, type WordHit } from './bm25-top.js';
import { createFtsTokenizer, type FtsTokenizer } from './fts-tokens.js';
import type { Db } from '../open.js';

/** ideas_fts's columns, in order, and their bm25 weights (graph-search-types.ts IDEA_COLUMN_WEIGHTS). */
const COLUMNS = ['content', 'turn', 'near', 'far'] as const;
export type IdeaColumn = (typeof COLUMNS)[number];
/** Texts whose tokens are kept (cleared whole when full). */
const CACHED_TEXTS = 20_000;

interface Posting {
  /** Idea ids containing the term, ascending. */
  ids: number[];
  /** Weighted occurrences (sum of column weights) per idea, beside `ids`. */
  freqs: number[];
}

interface State {
  /** Tokens per column of every idea: four numbers per idea id (0 for an id with no row). */
  sizes: Int32Array;
  rows: number;
  totalTokens: number;
  postings: Map<string, Posting>;
  dataVersion: number;
  /** The last log row applied, and its nonce (a rolled-back row is gone or another). */
  seq: number;
  nonce: number | null;
  /** Words given to ideas that ideas_fts does not hold yet (idea-context-writes.ts). */
  unflushed: { id: number; col: number; counts: Map<string, number> }[];
}

/** SQLite's varint (FTS5's docsize rows are one per column). */
function varints(buf: Uint8Array): number[] {
  const out: number[] = [];
  let p = 0;
  while (p < buf.length) {
    let v = 0;
    for (let i = 0; i < 9; i += 1) {
      const b = buf[p++]!;
      if (i === 8) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
    out.push(v);
  }
  return out;
}

function count(tokens: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of tokens) out.set(t, (out.get(t) ?? 0) + 1);
  return out;
}

/** Adds to an idea's weighted occurrences of a term (the column weights sum exactly in any order). */
function bump(p: Posting, id: number, by: number): void {
  const at = p.ids.at(-1)! < id ? p.ids.length : indexOf(p.ids, id);
  if (p.ids[at] !== id) {
    p.ids.splice(at, 0, id);
    p.freqs.splice(at, 0, 0);
  }
  p.freqs[at] = p.freqs[at]! + by;
}

/** `a` with room for index `n` (doubled, so growth costs little). */
function withRoom<T extends Int32Array | Float64Array>(a: T, n: number, make: (n: number) => T): T {
  if (n < a.length) return a;
  const b = make(Math.max(n + 1, a.length * 2));
  b.set(a);
  return b;
}

/** `beforeRead` writes to ideas_fts the words it was told of but has not written yet. */
export function createIdeaWords(db: Db, weights: readonly number[], beforeRead = () => {}) {
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS idea_words_log (seq INTEGER PRIMARY KEY,
      id INTEGER NOT NULL, op TEXT NOT NULL, nonce INTEGER NOT NULL DEFAULT (abs(random() % 9007199254740991)));
    CREATE TEMP TRIGGER IF NOT EXISTS idea_words_insert AFTER INSERT ON main.ideas BEGIN
      INSERT INTO idea_words_log (id, op) VALUES (new.id, 'insert'); END;
    CREATE TEMP TRIGGER IF NOT EXISTS idea_words_delete AFTER DELETE ON main.ideas BEGIN
      INSERT INTO idea_words_log (id, op) VALUES (old.id, 'delete'); END;
    CREATE TEMP TRIGGER IF NOT EXISTS idea_words_update AFTER UPDATE OF content ON main.ideas BEGIN
      INSERT INTO idea_words_log (id, op) VALUES (new.id, 'update'); END;
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.idea_words_vocab
      USING fts5vocab(main, ideas_fts, instance);`);
  const tokenizer: FtsTokenizer = createFtsTokenizer();
  // The same texts come back: a query's words, and a turn's words given to the turns after it.
  const cache = new Map<string, string[]>();
  const tokens = (texts: readonly string[]): string[][] => {
    const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
    if (cache.size + missing.length > CACHED_TEXTS) cache.clear();
    tokenizer.tokens(missing).forEach((list, k) => cache.set(missing[k]!, list));
    return texts.map((t) => cache.get(t) ?? tokenizer.tokens([t])[0]!);
  };
  const lastLog = db.prepare('SELECT seq, nonce FROM idea_words_log ORDER BY seq DESC LIMIT 1');
  const logAt = db.prepare('SELECT nonce FROM idea_words_log WHERE seq = ?');
  const logAfter = db.prepare(
    'SELECT seq, id, op, nonce FROM idea_words_log WHERE seq > ? ORDER BY seq',
  );
  const prune = db.prepare('DELETE FROM idea_words_log WHERE seq < ?');
  const note = db.prepare("INSERT INTO idea_words_log (id, op) VALUES (0, 'words')");
  const docsizes = db.prepare('SELECT id, sz FROM ideas_fts_docsize');
  const contents = db.prepare('SELECT content FROM ideas WHERE id = ?');
  const instances = db.prepare('SELECT doc, col FROM idea_words_vocab WHERE term = ?');
  const colIndex = new Map<string, number>(COLUMNS.map((c, i) => [c, i]));
  // Asked before every query: a prepared statement costs less than db.pragma's own each time.
  const version = db.prepare('PRAGMA data_version');
  const dataVersion = () => Number((version.get() as { data_version: number }).data_version);
  let state: State | null = null;

  const load = (): State => {
    beforeRead();
    let sizes = new Int32Array(1024);
    let rows = 0;
    let totalTokens = 0;
    for (const r of docsizes.all() as { id: number; sz: Uint8Array }[]) {
      sizes = withRoom(sizes, 4 * r.id + 3, (n) => new Int32Array(n));
      varints(r.sz).forEach((n, col) => {
        sizes[4 * r.id + col] = n;
        totalTokens += n;
      });
      rows += 1;
    }
    const last = lastLog.get() as { seq: number; nonce: number } | undefined;
    return {
      sizes,
      rows,
      totalTokens,
      postings: new Map(),
      dataVersion: dataVersion(),
      seq: last?.seq ?? 0,
      nonce: last?.nonce ?? null,
      unflushed: [],
    };
  };

  /** Adds a column's tokens to an idea (the terms read so far, and the sizes). */
  const add = (
    s: State,
    id: number,
    col: number,
    tokens: readonly string[],
    counts = count(tokens),
  ) => {
    s.sizes = withRoom(s.sizes, 4 * id + 3, (n) => new Int32Array(n));
    s.sizes[4 * id + col] = s.sizes[4 * id + col]! + tokens.length;
    s.totalTokens += tokens.length;
    for (const [term, n] of counts) {
      const p = s.postings.get(term);
      if (p) bump(p, id, n * weights[col]!);
    }
  };

  const mark = (s: State, row: { seq: number; nonce: number }) => {
    s.seq = row.seq;
    s.nonce = row.nonce;
  };

  /** Applies what this connection logged since; null when the state cannot follow it. */
  const catchUp = (): State | null => {
    const s = state;
    if (!s) return null;
    if (dataVersion() !== s.dataVersion) return (state = null);
    if (s.seq > 0 && (logAt.get(s.seq) as { nonce: number } | undefined)?.nonce !== s.nonce)
      return (state = null);
    const rows = logAfter.all(s.seq) as { seq: number; id: number; op: string; nonce: number }[];
    if (rows.length === 0) return s;
    if (rows.some((r) => r.op !== 'insert')) return (state = null);
    const texts = rows.map((r) => (contents.get(r.id) as { content: string } | undefined)?.content);
    if (texts.some((t) => t === undefined)) return (state = null);
    tokens(texts as string[]).forEach((list, k) => add(s, rows[k]!.id, 0, list));
    s.rows += rows.length;
    mark(s, rows.at(-1)!);
    prune.run(s.seq);
    return s;
  };

  const posting = (s: State, term: string): Posting => {
    let p = s.postings.get(term);
    if (!p) {
      const ids: number[] = [];
      const freqs: number[] = [];
      for (const r of instances.all(term) as { doc: number; col: string }[]) {
        const w = weights[colIndex.get(r.col) ?? 0]!;
        if (ids.at(-1) === r.doc) freqs[freqs.length - 1] = freqs.at(-1)! + w;
        else {
          ids.push(r.doc);
          freqs.push(w);
        }
      }
      p = { ids, freqs };
      for (const u of s.unflushed) {
        const n = u.counts.get(term);
        if (n) bump(p, u.id, n * weights[u.col]!);
      }
      s.postings.set(term, p);
    }
    return p;
  };

  /** Words written around ideas (graph-text-search.ts): columns that were empty, or words appended. */
  const words = (ids: readonly number[], columns: [IdeaColumn, string][], replace: boolean) => {
    const s = catchUp();
    if (!s || ids.length === 0 || columns.length === 0) return;
    const cols = columns.map(([c]) => colIndex.get(c)!);
    if (replace && ids.some((id) => cols.some((c) => (s.sizes[4 * id + c] ?? 0) > 0))) {
      state = null;
      return;
    }
    const lists = tokens(columns.map(([, text]) => text));
    const counts = lists.map(count);
    for (const id of ids)
      cols.forEach((c, k) => {
        add(s, id, c, lists[k]!, counts[k]);
        s.unflushed.push({ id, col: c, counts: counts[k]! });
      });
    note.run();
    mark(s, lastLog.get() as { seq: number; nonce: number });
  };

  // Scores of one query, by idea id (bm25-top.ts leaves it zeroed).
  let acc = new Float64Array(1024);

  return {
    /** Sets columns of ideas that held no words (graph-text-search.ts setContext). */
    set: (ids: readonly number[], columns: [IdeaColumn, string][]) => words(ids, columns, true),
    /** Appends words to a column (graph-text-search.ts addContext). */
    append: (ids: readonly number[], column: IdeaColumn, text: string) =>
      words(ids, [[column, text]], false),

    /**
     * The ideas an FTS5 query of these words (`"w1" OR "w2" ...`) ranks first by bm25, with
     * their bm25; null when a word is more than one token (the caller asks FTS5).
     */
    nearest(queryWords: readonly string[], limit: number): WordHit[] | null {
      const s = catchUp() ?? (state = load());
      const phrases = tokens(queryWords);
      if (phrases.some((p) => p.length !== 1)) return null;
      if (s.rows === 0 || phrases.length === 0) return [];
      const terms = (phrases as [string][]).map(([term]) => {
        const { ids, freqs } = posting(s, term);
        const v = Math.log((s.rows - ids.length + 0.5) / (ids.length + 0.5));
        return { ids, freqs, idf: v <= 0 ? 1e-6 : v };
      });
      acc = withRoom(acc, s.sizes.length / 4, (n) => new Float64Array(n));
      return bm25Top(terms, s.sizes, s.totalTokens / s.rows, limit, acc);
    },

    /** Tokenizes texts that will come soon in one go (a batch's ideas and turns). */
    prime: (texts: readonly string[]) => {
      tokens(texts);
    },

    /** ideas_fts now holds every word it was told of. */
    flushed: () => {
      if (state) state.unflushed = [];
    },

    close: () => tokenizer.close(),
  };
}

export type IdeaWords = ReturnType<typeof createIdeaWords>;
