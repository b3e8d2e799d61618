/**
 * The memories' vector index: an HNSW graph (usearch, vectors quantised to int8) over every stored
 * vector, asked for a few hundred candidates that the search then ranks by exact cosine over the
 * float vectors read from the store.
 *
 * Why usearch (bench/search-speed.js measures it beside the sign-bit scan it replaced, 100,000
 * x 512): the exact re-rank of its 400 nearest finds 0.99+ of the exact top 10 where the sign-bit
 * scan found 0.84-0.96; it builds 100,000 vectors in about 10 s of one core into a 66 MB file that
 * loads in under half a second (hnswlib-node: 35 s, float only, a 220 MB file, and a compile
 * during `npm ci`); its addon ships inside the npm package, so installing it downloads and
 * compiles nothing.
 *
 * The store stays the source of truth. The index is kept beside a SQLite store (vector-ann-file.ts)
 * and rebuilt from the stored vectors when that file is missing or stale; on PostgreSQL, or a
 * store in memory, it is built in memory at the first search (serve: at start). Before each
 * search it reads the vectors written since (a re-embedded memory replaces its entry), and a
 * candidate whose vector the store no longer has (memory deleted, text changed) is forgotten when
 * a search meets it.
 */
import { Index, MetricKind, ScalarKind } from 'usearch';

import type { SearchStore, StoredVector } from '../db/index.js';
import { fromBlob } from '../memory/index.js';
import { readSavedIndex, saveIndex } from './vector-ann-file.js';

/** Graph degree and build-time breadth: recall 0.99+ after the re-rank at a quarter of the build cost of 128. */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 64;
/** Rows read but not yet on disk after which the file is written again. */
const SAVE_AFTER = 1000;
/** A batch this large is added on every core (a rebuild); smaller ones on this thread. */
const PARALLEL_BATCH = 1000;

export type AnnStore = Pick<
  SearchStore,
  'vectorsSince' | 'lastVectorId' | 'countVectors' | 'countAllVectors'
> &
  Partial<Pick<SearchStore, 'vectorWatch'>>;

export function createAnnIndex(
  store: AnnStore,
  model: string,
  dimension: number,
  /** Where it is kept, without extension (null: in memory only). */
  file: string | null,
) {
  const changed = store.vectorWatch?.() ?? (() => true);
  const empty = () =>
    new Index({
      dimensions: dimension,
      metric: MetricKind.Cos,
      quantization: ScalarKind.I8,
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: 0,
      multi: false,
    });
  let graph: Index | null = null;
  let lastId = 0;
  let unsaved = 0;

  /** Adds the rows; a memory's newest vector replaces the one it had. */
  const add = (into: Index, rows: readonly StoredVector[]) => {
    const newest = new Map<number, Float32Array>();
    for (const row of rows) {
      lastId = Math.max(lastId, row.id);
      const v = fromBlob(row.vector);
      if (v.length === dimension) newest.set(row.memoryId, v);
    }
    if (newest.size === 0) return;
    const keys = new BigUint64Array(newest.size);
    const flat = new Float32Array(newest.size * dimension);
    let i = 0;
    for (const [memoryId, v] of newest) {
      keys[i] = BigInt(memoryId);
      if (into.contains(keys[i]!)) into.remove(keys[i]!);
      flat.set(v, i * dimension);
      i += 1;
    }
    into.add(keys, flat, newest.size >= PARALLEL_BATCH ? 0 : 1);
    unsaved += newest.size;
  };

  const save = (into: Index) => {
    if (file && saveIndex(file, into, { model, dimension, lastId })) unsaved = 0;
  };

  const rebuild = (): Index => {
    const fresh = empty();
    lastId = 0;
    add(fresh, store.vectorsSince(0, model));
    save(fresh);
    return fresh;
  };

  /** The saved index caught up with the store, or a rebuilt one. */
  const open = (): Index => {
    const saved = file
      ? readSavedIndex(file, { model, dimension }, store.lastVectorId(), empty)
      : null;
    if (!saved) return rebuild();
    lastId = saved.lastId;
    add(saved.index, store.vectorsSince(lastId, model));
    // Fewer entries than the store has vectors: the file is not this store's. (Counted over
    // every model first, which is cheap; by this model only when other models' vectors remain.)
    const size = saved.index.size();
    if (size < store.countAllVectors() && size < store.countVectors(model)) return rebuild();
    if (unsaved >= SAVE_AFTER) save(saved.index);
    return saved.index;
  };

  const index = {
    model,
    dimension,

    /** Reads the vectors written since the last call (by this or any other process). */
    refresh(): Index {
      if (!changed() && graph) return graph;
      if (!graph) graph = open();
      else {
        add(graph, store.vectorsSince(lastId, model));
        if (unsaved >= SAVE_AFTER) save(graph);
      }
      return graph;
    },

    get size(): number {
      return graph?.size() ?? 0;
    },

    /**
     * Memory ids of the `k` vectors nearest the query by their int8 cosine, nearest first, from a
     * search of the graph `breadth` wide: a wider beam finds the true nearest, and the int8 order
     * within it is close enough that re-ranking its first 50 already gives the exact top 10.
     */
    candidates(query: Float32Array, k: number, breadth = k): number[] {
      const g = index.refresh();
      const n = Math.min(Math.max(k, breadth), g.size());
      if (n === 0) return [];
      return Array.from(g.search(query, n, 1).keys.subarray(0, k), Number);
    },

    /** Drops memories whose vector the store no longer has. */
    forget(memoryIds: readonly number[]): void {
      for (const id of memoryIds) {
        if (graph?.contains(BigInt(id))) {
          graph.remove(BigInt(id));
          unsaved += 1;
        }
      }
    },
  };
  return index;
}

export type AnnIndex = ReturnType<typeof createAnnIndex>;
