/**
 * Full-text search on PostgreSQL, in this instance: the SQLite store's FTS5 tables (memories_fts,
 * ideas_fts, spans_fts, events_fts, event_groups_fts; text-sources.ts) rebuilt in an in-memory
 * SQLite database from the shared rows, so that the stores run the same MATCH and bm25 as on a
 * SQLite file and get the same matches and ranks by construction. PostgreSQL's own text search
 * splits and stems words otherwise ("/health" is one word there), which would change results.
 *
 * The copy is a cache: the first search of a table reads its rows a page at a time; every later
 * search first reads what changed since (the table search_changes, stamped by triggers with the
 * changing transaction's id, migrations/postgres/0003_search_cursor.sql). The cursor is the oldest
 * transaction still running at the last read, so that one committing late is still read. The
 * check (one indexed statement) is made only when the table may have changed: another instance's
 * change was heard through LISTEN (change-feed.ts), this process wrote one of its source tables
 * (its own writes are searchable at once, before their notification arrives), or the feed is
 * down (then on every search, until it is back and everything is read again). A row changed by
 * the transaction the search runs in is read as that transaction sees it (as SQLite's index would
 * show it) and read again at the next search, committed or rolled back.
 *
 * Each process records its cursor in search_readers (migrations/postgres/0008_search_readers.sql)
 * so that retention can delete the changes every reader has read (pruneSearchChanges); a reader
 * whose cursor is older than what was deleted loads its tables whole again.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setImmediate } from 'node:timers/promises';

import Database from 'better-sqlite3';

import { tableWatch } from './change-watch.js';
import type { PostgresDb } from './database.js';
import { CHANGES, HORIZON, REPORT } from './search-changes.js';
import { TEXT_SOURCES, type TextTable } from './text-sources.js';

/** Rows read per statement on the first load, and ids per statement when catching up. */
const PAGE = 5000;
/** Rows a warm-up writes to the local index per turn of the event loop (a few ms of work). */
const WARM_BATCH = 500;
/** Catch-ups an awaited read makes at most, when changes keep arriving while it reads. */
const AWAITED_ROUNDS = 3;
/** How often a reader records its cursor as it catches up (always at a table's first load). */
const REPORT_MS = 60_000;

interface TableState {
  /** pg_snapshot_xmin at the last read (xid8 as text); null until the first load. */
  cursor: string | null;
  /** Counts the loads begun: a warm-up stops when a search's own load overtook it. */
  loads: number;
  /** Changes read at or after the cursor: row id -> the transaction id it was read at. */
  applied: Map<number, string>;
  /** Rows read as the transaction that changed them saw them, before it ended. */
  tentative: Set<number>;
  insert: Database.Statement;
  remove: Database.Statement;
  /** Whether the shared rows may have changed since the last look (change-watch.ts). */
  changed: () => boolean;
  /** An awaited catch-up or load on its way (currentAwaited). */
  pending: Promise<void> | null;
}

/** The shared tables whose writes change each full-text table (through the triggers). */
const WRITTEN_BY: Record<TextTable, string[]> = {
  memories_fts: ['memories', 'services'],
  ideas_fts: ['ideas', 'idea_context'],
  spans_fts: ['spans'],
  events_fts: ['events'],
  event_groups_fts: ['event_groups', 'events'],
};

export class LocalTextIndex {
  /** The in-memory SQLite database holding the FTS5 tables. */
  readonly local: Database.Database;
  private readonly tables = new Map<TextTable, TableState>();
  private readonly reader = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private reportedAt = -Infinity;

  constructor(private readonly db: PostgresDb) {
    this.local = new Database(':memory:');
  }

  /**
   * Records the oldest cursor of the loaded tables (search_readers), at most every REPORT_MS
   * unless `force`; `reportAwaited` is the same, awaited.
   */
  private report(force: boolean): void {
    const q = this.reportDue(force);
    if (q) this.query(q.text, q.params);
  }

  private async reportAwaited(force: boolean): Promise<void> {
    const q = this.reportDue(force);
    if (q) await this.queryAwaited(q.text, q.params);
  }

  /** The statement that records the oldest cursor when one is due, counted as recorded. */
  private reportDue(force: boolean): { text: string; params: unknown[] } | null {
    const now = Date.now();
    if (!force && now - this.reportedAt < REPORT_MS) return null;
    const cursors = [...this.tables.values()].flatMap((t) => (t.cursor === null ? [] : [t.cursor]));
    if (cursors.length === 0) return null;
    const oldest = cursors.reduce((a, b) => (BigInt(a) <= BigInt(b) ? a : b));
    this.reportedAt = now;
    return { text: REPORT, params: [this.reader, oldest, now] };
  }

  private state(table: TextTable): TableState {
    let state = this.tables.get(table);
    if (!state) {
      state = this.create(table);
      this.tables.set(table, state);
    }
    return state;
  }

  /**
   * Loads a table not loaded yet without blocking the event loop: its rows are awaited a page
   * at a time and written in small batches, a turn of the loop between them. `serve` warms the
   * memories' table at start, so that the first memory a session writes does not wait, loop
   * stopped, for every memory's text to cross the network. A search that needs the table
   * before the warm-up ends loads it itself; the warm-up then stops.
   */
  async warm(table: TextTable): Promise<void> {
    const state = this.state(table);
    if (state.cursor !== null) return;
    const load = ++state.loads;
    const overtaken = () => state.loads !== load || state.cursor !== null;
    const { columns, after } = TEXT_SOURCES[table];
    // Outside any transaction: nothing read is this connection's own, uncommitted.
    const [{ horizon }] = (await this.queryAwaited(HORIZON, [])) as [{ horizon: string }];
    if (overtaken()) return;
    this.local.prepare(`DELETE FROM ${table}`).run();
    let last = 0;
    for (;;) {
      const rows = await this.queryAwaited(after, [last, PAGE]);
      for (let i = 0; i < rows.length; i += WARM_BATCH) {
        if (overtaken()) return;
        this.write(state, columns, [], rows.slice(i, i + WARM_BATCH));
        await setImmediate();
      }
      if (overtaken()) return;
      if (rows.length < PAGE) break;
      last = rows[rows.length - 1]!.id as number;
    }
    this.loaded(table, state, horizon);
    await this.reportAwaited(true);
  }

  /** Brings one full-text table up to date with the shared rows; returns the local database. */
  current(table: TextTable): Database.Database {
    const state = this.state(table);
    // Nothing heard from other instances and nothing written here: the copy is current.
    const changed = state.changed();
    if (state.cursor === null) this.load(table, state);
    else if (changed || state.tentative.size > 0) this.catchUp(table, state);
    return this.local;
  }

  private query(text: string, params: unknown[]): Record<string, unknown>[] {
    return this.db.call({ op: 'query', text, params, mode: 'plain' }).rows;
  }

  /** The same, awaited: outside any transaction, the event loop going on meanwhile. */
  private async queryAwaited(text: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    return (await this.db.callAsync({ op: 'query', text, params, mode: 'plain' })).rows;
  }

  private create(table: TextTable): TableState {
    const { columns, tokenize } = TEXT_SOURCES[table];
    this.local.exec(
      `CREATE VIRTUAL TABLE ${table} USING fts5(${columns.join(', ')}, tokenize = '${tokenize}')`,
    );
    return {
      cursor: null,
      loads: 0,
      applied: new Map(),
      tentative: new Set(),
      insert: this.local.prepare(
        `INSERT INTO ${table} (rowid, ${columns.join(', ')})
         VALUES (?, ${columns.map(() => '?').join(', ')})`,
      ),
      remove: this.local.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
      changed: tableWatch(this.db, ...WRITTEN_BY[table]),
      pending: null,
    };
  }

  /** Where the next read starts, and this statement's own transaction (if it wrote anything). */
  private horizon(): { horizon: string; own: string | null } {
    const [row] = this.query(HORIZON, []) as { horizon: string; own: string | null }[];
    return row!;
  }

  private load(table: TextTable, state: TableState): void {
    state.loads += 1;
    const { columns, after } = TEXT_SOURCES[table];
    const { horizon, own } = this.horizon();
    this.local.prepare(`DELETE FROM ${table}`).run();
    let last = 0;
    for (;;) {
      const rows = this.query(after, [last, PAGE]);
      this.write(state, columns, [], rows);
      if (rows.length < PAGE) break;
      last = rows[rows.length - 1]!.id as number;
    }
    // Read inside a transaction that wrote: what it changed may yet be rolled back, so the next
    // search loads the table again rather than trust this copy.
    this.loaded(table, state, own === null ? horizon : null);
    if (own === null) this.report(true);
  }

  /**
   * The end of a whole load: the index merged, the changes forgotten, the cursor set (the
   * caller records it, synchronously or awaited).
   */
  private loaded(table: TextTable, state: TableState, cursor: string | null): void {
    // Loaded in many transactions, the index is in as many segments: merged, it reads faster.
    this.local.prepare(`INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
    state.applied.clear();
    state.tentative.clear();
    state.cursor = cursor;
  }

  private catchUp(table: TextTable, state: TableState): void {
    const steps = this.catchUpSteps(table, state);
    let next = steps.next();
    while (!next.done) next = steps.next(this.query(next.value.text, next.value.params));
    if (next.value === 'reload') this.load(table, state);
    else this.report(false);
  }

  /**
   * The same as `current`, its reads awaited (a search: with PostgreSQL a network hop away, the
   * event loop serves other requests meanwhile). Searches that ask while a catch-up or a load is
   * on its way wait for it. A synchronous read of the table that catches up meanwhile wins: the
   * awaited one then keeps nothing of what it read.
   */
  async currentAwaited(table: TextTable): Promise<void> {
    const state = this.state(table);
    // Again while changes were heard meanwhile (a few times at most: under a stream of writes
    // the search goes on with what it read, as a synchronous one would).
    for (let round = 0; round < AWAITED_ROUNDS; round++) {
      while (state.pending) await state.pending;
      const changed = state.changed();
      let work: Promise<void>;
      if (state.cursor === null) work = this.warm(table);
      else if (changed || state.tentative.size > 0) work = this.catchUpAwaited(table, state);
      else return;
      const pending = work.finally(() => {
        if (state.pending === pending) state.pending = null;
      });
      state.pending = pending;
      await pending;
    }
  }

  private async catchUpAwaited(table: TextTable, state: TableState): Promise<void> {
    const steps = this.catchUpSteps(table, state);
    let next = steps.next();
    const start = state.loads;
    while (!next.done) {
      const { text, params } = next.value;
      const rows = await this.queryAwaited(text, params);
      if (state.loads !== start) return;
      next = steps.next(rows);
    }
    if (next.value === 'reload') {
      state.cursor = null;
      return this.warm(table);
    }
    await this.reportAwaited(false);
  }

  /**
   * The catch-up of one table, once for both drivers (the synchronous and the awaited): it
   * yields the statements it needs answered and is handed their rows. Nothing of the table's
   * state changes until every read is in, so that an awaited driver overtaken meanwhile can
   * leave it as it is. Answers `reload` when this reader's changes were pruned (it was gone too
   * long): the table is read whole again.
   */
  private *catchUpSteps(
    table: TextTable,
    state: TableState,
  ): Generator<{ text: string; params: unknown[] }, 'reload' | 'done', Record<string, unknown>[]> {
    state.loads += 1;
    const { columns, byIds } = TEXT_SOURCES[table];
    const [head] = (yield { text: CHANGES, params: [table, state.cursor] }) as {
      horizon: string;
      changed: string;
      pruned: string;
    }[];
    if (BigInt(head!.pruned) > BigInt(state.cursor!)) return 'reload';
    const changed = JSON.parse(head!.changed) as [number, string, boolean | null][];
    const ids = new Set(state.tentative);
    const tentative = new Set<number>();
    const applied = new Map<number, string>();
    for (const [id, xid, mine] of changed) {
      if (mine) tentative.add(id);
      else if (state.applied.get(id) === xid && !state.tentative.has(id)) continue;
      ids.add(id);
      applied.set(id, xid);
    }
    const all = [...ids];
    const chunks: { ids: number[]; rows: Record<string, unknown>[] }[] = [];
    for (let i = 0; i < all.length; i += PAGE) {
      const chunk = all.slice(i, i + PAGE);
      chunks.push({ ids: chunk, rows: yield { text: byIds, params: [chunk] } });
    }
    for (const c of chunks) this.write(state, columns, c.ids, c.rows);
    for (const [id, xid] of applied) state.applied.set(id, xid);
    state.tentative = tentative;
    state.cursor = head!.horizon;
    // What was read before the new cursor will not be read again: forget it.
    const floor = BigInt(head!.horizon);
    for (const [id, xid] of state.applied) if (BigInt(xid) < floor) state.applied.delete(id);
    return 'done';
  }

  /**
   * Replaces the rows of these ids with the rows given (those of them that still exist, and any
   * other row read with them: a memory's neighbours).
   */
  private write(
    state: TableState,
    columns: readonly string[],
    ids: readonly number[],
    rows: Record<string, unknown>[],
  ): void {
    const replaced = new Set([...ids, ...rows.map((r) => Number(r.id))]);
    this.local.transaction(() => {
      for (const id of replaced) state.remove.run(id);
      for (const r of rows) state.insert.run(r.id, ...columns.map((c) => r[c] ?? null));
    })();
  }
}

const indexes = new WeakMap<PostgresDb, LocalTextIndex>();

/** This database connection's local index (one per PostgresDb: one per instance). */
export function localTextIndex(db: PostgresDb): LocalTextIndex {
  let index = indexes.get(db);
  if (!index) {
    index = new LocalTextIndex(db);
    indexes.set(db, index);
  }
  return index;
}
