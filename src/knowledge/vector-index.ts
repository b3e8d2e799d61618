/**
 * A sign-bit index, in this process: a 512-bit signature per stored vector, scanned by Hamming
 * distance for a few hundred candidates, which are then re-ranked by exact cosine over their
 * float vectors read from the store. The graph's ideas and spans use it (src/graph/vectors.ts);
 * memories moved to the HNSW index of vector-ann.ts, whose recall holds at 100,000 (0.997 against
 * 0.96 for this scan, bench/search-speed.js, which keeps this one as its baseline).
 *
 * 512 sign bits are 64 bytes a vector (6.4 MB at 100,000) and a full scan takes about 3 ms. The
 * store stays the source of truth: the index catches up with `vectorsSince` before each search
 * (when the store's watch says vectors may have been written: on a shared database, when one was
 * heard of), and a candidate whose row is gone is dropped by the store's filter.
 */
import type { SearchStore, StoredVector } from '../db/index.js';
import { dot, fromBlob, POPCOUNT16, signatureWords, signBits } from '../memory/index.js';

/**
 * Where the index catches up from: `vectorsSince` read at once (a search inside a transaction
 * that wrote vectors, which only its own connection sees), `vectorsSinceAwaited` for
 * `refreshAwaited` (a search that must not hold the event loop; committed rows only). A store
 * may give either or both: the missing one is not asked for.
 */
export interface VectorSource extends Partial<Pick<SearchStore, 'vectorWatch'>> {
  vectorsSince?(afterId: number, model: string): StoredVector[];
  vectorsSinceAwaited?(afterId: number, model: string): Promise<StoredVector[]>;
}

export interface VectorHit {
  memoryId: number;
  cosine: number;
}

export function createVectorIndex(store: VectorSource, model: string, dimension: number) {
  const watch = store.vectorWatch?.() ?? (() => true);
  // An awaited catch-up that failed took the watch's news with it: the next one reads anyway.
  let missed = false;
  const changed = () => watch() || missed;
  /** An awaited catch-up on its way: another waits for it rather than read the same rows. */
  let pending: Promise<void> | null = null;
  const words = signatureWords(dimension);
  let capacity = 1024;
  let bits = new Uint32Array(capacity * words);
  let ids = new Int32Array(capacity);
  let size = 0;
  let lastId = 0;
  // Newest slot of each memory; an older slot of a re-embedded memory is skipped.
  const slotOf = new Map<number, number>();
  const scratch = new Float32Array(dimension);

  const grow = () => {
    capacity *= 2;
    const nb = new Uint32Array(capacity * words);
    nb.set(bits);
    bits = nb;
    const ni = new Int32Array(capacity);
    ni.set(ids);
    ids = ni;
  };

  /** Adds rows read after `lastId` (a catch-up of the other kind may have read some meanwhile). */
  const add = (rows: readonly StoredVector[]) => {
    for (const row of rows) {
      if (row.id <= lastId) continue;
      lastId = row.id;
      const v = fromBlob(row.vector);
      if (v.length !== dimension) continue;
      if (size === capacity) grow();
      scratch.set(v);
      signBits(scratch, bits, size * words);
      ids[size] = row.memoryId;
      slotOf.set(row.memoryId, size);
      size += 1;
    }
  };

  const index = {
    model,
    dimension,

    /** Reads the vectors written since the last call (by this or any other process), at once. */
    refresh(): void {
      if (!changed()) return;
      missed = false;
      add(store.vectorsSince!(lastId, model));
    },

    /** The same, awaited: on PostgreSQL the event loop goes on while the rows come. */
    async refreshAwaited(): Promise<void> {
      while (pending) await pending;
      if (!changed()) return;
      missed = false;
      const read = store.vectorsSinceAwaited
        ? store.vectorsSinceAwaited(lastId, model)
        : Promise.resolve(store.vectorsSince!(lastId, model));
      const done = read.then(add, (err: unknown) => {
        missed = true;
        throw err;
      });
      const settled: Promise<void> = done
        .catch(() => undefined)
        .finally(() => {
          if (pending === settled) pending = null;
        });
      pending = settled;
      await done;
    },

    get size(): number {
      return slotOf.size;
    },

    /** Memory ids of the `k` signatures nearest the query by Hamming distance. */
    candidates(query: Float32Array, k: number): number[] {
      index.refresh();
      return index.loadedCandidates(query, k);
    },

    /** The same, caught up awaited. */
    async candidatesAwaited(query: Float32Array, k: number): Promise<number[]> {
      await index.refreshAwaited();
      return index.loadedCandidates(query, k);
    },

    /** The `k` nearest of what is loaded, without catching up first. */
    loadedCandidates(query: Float32Array, k: number): number[] {
      if (size === 0) return [];
      const q = new Uint32Array(words);
      signBits(query, q);
      const dist = new Uint16Array(size);
      const hist = new Uint32Array(words * 32 + 2);
      const table = POPCOUNT16;
      for (let i = 0, o = 0; i < size; i += 1, o += words) {
        let d = 0;
        for (let w = 0; w < words; w += 1) {
          const x = bits[o + w]! ^ q[w]!;
          d += table[x & 0xffff]! + table[x >>> 16]!;
        }
        dist[i] = d;
        hist[d]! += 1;
      }
      // The cut-off distance that admits at least k signatures, from the histogram: no sort.
      let cut = 0;
      for (let seen = 0; cut < hist.length && seen < k; cut += 1) seen += hist[cut]!;
      const out: number[] = [];
      for (let i = 0; i < size; i += 1) {
        if (dist[i]! < cut && slotOf.get(ids[i]!) === i) out.push(ids[i]!);
      }
      return out;
    },
  };
  return index;
}

export type VectorIndex = ReturnType<typeof createVectorIndex>;

/** Exact cosine of the query against stored vectors, best first. */
export function rankExact(
  query: Float32Array,
  vectors: Iterable<[number, Uint8Array]>,
  limit: number,
): VectorHit[] {
  const hits: VectorHit[] = [];
  for (const [memoryId, blob] of vectors) {
    hits.push({ memoryId, cosine: dot(query, fromBlob(blob)) });
  }
  hits.sort((a, b) => b.cosine - a.cosine || a.memoryId - b.memoryId);
  return hits.slice(0, limit);
}
