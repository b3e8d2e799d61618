/**
 * The memories' vector index on disk, beside the SQLite store: the usearch file (`.usearch`) and
 * what it holds (`.json`: model, dimension, the last vector row it read, the file's size). Each is
 * written under a temporary name and renamed, so a reader sees a whole file or the previous one;
 * a pair that does not match (two processes saving at once, a crash between the renames) reads as
 * stale and the index is rebuilt from the store.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';

import type { Index } from 'usearch';

/** Bumped when what the file holds changes meaning (quantisation, keys): older files are rebuilt. */
const FORMAT = 1;

export interface SavedIndex {
  model: string;
  dimension: number;
  /** The last memory_vectors row the index has read (it catches up from there). */
  lastId: number;
}

interface Meta extends SavedIndex {
  format: number;
  bytes: number;
}

/**
 * The saved index if it is this model's and dimension's and the store has every row it read
 * (`storeLastId`: a store replaced by an older copy has fewer); null when missing or stale.
 */
export function readSavedIndex(
  base: string,
  want: Omit<SavedIndex, 'lastId'>,
  storeLastId: number,
  empty: () => Index,
): { index: Index; lastId: number } | null {
  try {
    const meta = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Partial<Meta>;
    if (
      meta.format !== FORMAT ||
      meta.model !== want.model ||
      meta.dimension !== want.dimension ||
      typeof meta.lastId !== 'number' ||
      meta.lastId > storeLastId ||
      statSync(`${base}.usearch`).size !== meta.bytes
    )
      return null;
    const index = empty();
    index.load(`${base}.usearch`);
    return { index, lastId: meta.lastId };
  } catch {
    // Missing, unreadable or half-written: rebuilt from the store.
    return null;
  }
}

/** Writes the index and what it holds; false when the folder cannot be written (kept in memory). */
export function saveIndex(base: string, index: Index, saved: SavedIndex): boolean {
  const tmp = `${base}.${process.pid}.tmp`;
  try {
    index.save(`${tmp}.usearch`);
    const meta: Meta = { format: FORMAT, ...saved, bytes: statSync(`${tmp}.usearch`).size };
    writeFileSync(`${tmp}.json`, JSON.stringify(meta));
    renameSync(`${tmp}.usearch`, `${base}.usearch`);
    renameSync(`${tmp}.json`, `${base}.json`);
    return true;
  } catch {
    rmSync(`${tmp}.usearch`, { force: true });
    rmSync(`${tmp}.json`, { force: true });
    return false;
  }
}
