/**
 * The best few ideas of an any-of query by SQLite's bm25 (fts5_aux.c), from posting lists held
 * in memory (graph-words.ts), without scoring every idea that shares a common word. MaxScore: a
 * term adds less than idf * (k1 + 1) to any score, so the rare terms are read first, and once
 * the tenth best so far beats all that the remaining terms could add, an idea none of them
 * reached cannot make the top; the remaining terms are then only looked up for the few ideas
 * still in reach. Every idea that can be in the top is then scored again phrase by phrase in the
 * query's order, as FTS5 adds them up, so the scores are FTS5's to the last bit.
 */

export interface Bm25Term {
  /** Idea ids containing the term, ascending. */
  ids: readonly number[];
  /** Weighted occurrences per idea, beside `ids`. */
  freqs: readonly number[];
  idf: number;
}

export interface WordHit {
  id: number;
  bm25: number;
}

const K1 = 1.2;
const B = 0.75;
/** Room left for rounding: sums taken in another order differ in their last bits. */
const SLACK = 1e-9;
/** Each touched idea's length term, worked out once per query (beside `acc`). */
let norms = new Float64Array(1024);

/** Where `id` is, or would go, in ascending `ids` (binary search). */
export function indexOf(ids: readonly number[], id: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The `k`-th largest score of these ids (a small min-heap of the best `k`). */
function kthBest(acc: Float64Array, ids: readonly number[], k: number): number {
  const heap: number[] = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && heap[l]! < heap[m]!) m = l;
      if (r < heap.length && heap[r]! < heap[m]!) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (const id of ids) {
    const v = acc[id]!;
    if (heap.length < k) {
      heap.push(v);
      for (let i = heap.length - 1; i > 0;) {
        const p = (i - 1) >>> 1;
        if (heap[p]! <= heap[i]!) break;
        [heap[p], heap[i]] = [heap[i]!, heap[p]!];
        i = p;
      }
    } else if (v > heap[0]!) {
      heap[0] = v;
      down(0);
    }
  }
  return heap[0]!;
}

/**
 * The best `limit` ideas for these terms (in the query's order), ties to the lower id as FTS5
 * reads rows in rowid order. `sizes` holds four column sizes per idea id; `acc` is zeroed
 * scratch at least one entry per idea id, left zeroed.
 */
export function bm25Top(
  terms: readonly Bm25Term[],
  sizes: Int32Array,
  avgdl: number,
  limit: number,
  acc: Float64Array,
): WordHit[] {
  const norm = (id: number) => {
    const at = 4 * id;
    const d = sizes[at]! + sizes[at + 1]! + sizes[at + 2]! + sizes[at + 3]!;
    return K1 * (1 - B + (B * d) / avgdl);
  };
  const order = terms.map((_, i) => i).sort((a, b) => terms[b]!.idf - terms[a]!.idf || a - b);
  // What the terms from the j-th of `order` on could still add to a score.
  const rest = new Array<number>(order.length + 1).fill(0);
  for (let j = order.length - 1; j >= 0; j -= 1)
    rest[j] = rest[j + 1]! + terms[order[j]!]!.idf * (K1 + 1);

  if (norms.length < acc.length) norms = new Float64Array(acc.length);
  const touched: number[] = [];
  let cut = order.length;
  let floor = 0;
  for (let j = 0; j < order.length; j += 1) {
    const { ids, freqs, idf } = terms[order[j]!]!;
    if (touched.length >= limit && ids.length > touched.length) {
      floor = kthBest(acc, touched, limit);
      if (floor > rest[j]! * (1 + SLACK)) {
        cut = j;
        break;
      }
    }
    for (let k = 0; k < ids.length; k += 1) {
      const id = ids[k]!;
      const f = freqs[k]!;
      if (acc[id] === 0) {
        touched.push(id);
        norms[id] = norm(id);
      }
      acc[id] = acc[id]! + idf * ((f * (K1 + 1.0)) / (f + norms[id]!));
    }
  }
  if (touched.length >= limit) floor = kthBest(acc, touched, limit);
  const reach = rest[cut]! * (1 + SLACK);
  const within = floor * (1 - SLACK);
  const inReach = touched.filter((id) => acc[id]! + reach >= within);
  for (const id of touched) acc[id] = 0;

  // FTS5's sum: phrase by phrase in the query's order.
  const scored = inReach.map((id) => {
    let score = 0;
    const n = norm(id);
    for (const { ids, freqs, idf } of terms) {
      const at = indexOf(ids, id);
      if (ids[at] !== id) continue;
      const f = freqs[at]!;
      score = score + idf * ((f * (K1 + 1.0)) / (f + n));
    }
    return { id, score };
  });
  scored.sort((a, b) => b.score - a.score || a.id - b.id);
  return scored.slice(0, limit).map(({ id, score }) => ({ id, bm25: -1 * score }));
}
