/**
 * The words around ideas (ideas_fts's turn, near and far columns; idea_context on PostgreSQL),
 * written once per idea when a batch is done rather than on every change: an idea's turn is set,
 * then the next turn and the one after add to it, and a full-text row is rewritten whole each
 * time. The changes wait here, in order, and `flush` gives each idea the text the statements one
 * by one would have left (SQL's trim drops spaces only). Whatever reads the table flushes first;
 * indexing asks the words in memory (graph-words.ts), which have them already.
 */
import type { Db } from '../open.js';

type Column = 'turn' | 'near' | 'far';
type Change = { column: Column; text: string; append: boolean };

const COLUMNS: readonly Column[] = ['turn', 'near', 'far'];

/** SQL's trim(X): spaces off both ends, nothing else. */
function trimSpaces(text: string): string {
  let a = 0;
  let b = text.length;
  while (a < b && text.charCodeAt(a) === 32) a += 1;
  while (b > a && text.charCodeAt(b - 1) === 32) b -= 1;
  return text.slice(a, b);
}

export function createContextWrites(
  cached: (sql: string) => ReturnType<Db['prepare']>,
  postgres: boolean,
) {
  const pending = new Map<number, Change[]>();
  const note = (ids: readonly number[], change: Change) => {
    for (const id of ids) {
      const list = pending.get(id);
      if (list) list.push(change);
      else pending.set(id, [change]);
    }
  };
  const read = cached(
    postgres
      ? 'SELECT turn, near, far FROM idea_context WHERE idea_id = ?'
      : 'SELECT turn, near, far FROM ideas_fts WHERE rowid = ?',
  );

  return {
    set(ids: readonly number[], columns: [Column, string][]): void {
      for (const [column, text] of columns) note(ids, { column, text, append: false });
    },
    append(ids: readonly number[], column: Column, text: string): void {
      note(ids, { column, text, append: true });
    },

    /** Writes what waits, one statement per idea. */
    flush(): void {
      for (const [id, changes] of pending) {
        const readFirst = COLUMNS.some((c) => changes.find((x) => x.column === c)?.append);
        const row = readFirst
          ? (read.get(id) as Record<Column, string | null> | undefined)
          : { turn: null, near: null, far: null };
        if (!row) continue;
        const values = { ...row };
        for (const { column, text, append } of changes) {
          const was = values[column];
          values[column] = !append ? text : was === null ? null : trimSpaces(`${was} ${text}`);
        }
        const columns = COLUMNS.filter((c) => changes.some((x) => x.column === c));
        cached(
          postgres
            ? `UPDATE idea_context SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE idea_id = ?`
            : `UPDATE ideas_fts SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE rowid = ?`,
        ).run(...columns.map((c) => values[c]), id);
      }
      pending.clear();
    },

    /** Forgets what waits (its transaction rolled back). */
    drop(): void {
      pending.clear();
    },

    get waiting(): boolean {
      return pending.size > 0;
    },
  };
}

export type ContextWrites = ReturnType<typeof createContextWrites>;
