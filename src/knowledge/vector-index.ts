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
import type { SearchStore } from '../db/index.js';
import { dot, fromBlob, POPCOUNT16, signatureWords, signBits } from '../memory/index.js';

export interface VectorHit {
  memoryId: number;
  cosine: number;
}

export function createVectorIndex(
  store: Pick<SearchStore, 'vectorsSince'> & Partial<Pick<SearchStore, 'vectorWatch'>>,
  model: string,
  dimension: number,
) {
  const changed = store.vectorWatch?.() ?? (() => true);
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

  const index = {
    model,
    dimension,

    /** Reads the vectors written since the last call (by this or any other process). */
    refresh(): void {
      if (!changed()) return;
      for (const row of store.vectorsSince(lastId, model)) {
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
    },

    get size(): number {
      return slotOf.size;
    },

    /** Memory ids of the `k` signatures nearest the query by Hamming distance. */
    candidates(query: Float32Array, k: number): number[] {
      index.refresh();
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
