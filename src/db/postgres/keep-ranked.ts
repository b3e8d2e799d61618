/**
 * Ranking in an instance's local full-text copy with the filter run in PostgreSQL: the hits
 * that pass, best first, read a chunk at a time (local-text-index.ts keeps the copy).
 */

/** A filter this narrow is read whole from PostgreSQL, and the ranking kept to its rows. */
const NARROW = 5000;

/**
 * The hits of a ranked local match that pass a filter run in PostgreSQL, best first: at most
 * `limit`, from the first `window` hits (every hit when omitted). The filter also drops rows
 * deleted since the index last caught up.
 *
 * `ranked(n, skip, within)` reads the hits from `skip` on, `n` at most, only those of `within`
 * when given. They are read and filtered a chunk at a time, each chunk twice the last, so that a
 * filter passing most hits reads few, and a ranking is cut short (a top-n sort). When the first
 * chunk is not enough and the filter selects few rows (`narrow`: their ids, or null when more than
 * NARROW), the ranking is kept to those rows instead: one more statement each side, where reading
 * on could mean reading every hit.
 */
export function keepRanked<T extends { id: number }>(
  ranked: (n: number, skip: number, within?: readonly number[]) => T[],
  keep: (ids: number[]) => Set<number>,
  limit: number,
  window = Infinity,
  narrow?: (max: number) => number[] | null,
): T[] {
  const steps = rankedSteps(ranked, limit, window, narrow !== undefined);
  for (let next = steps.next(); ;) {
    if (next.done) return next.value;
    const need = next.value;
    next = steps.next('keep' in need ? keep(need.keep) : narrow!(need.narrow));
  }
}

/** The same, the filter and the narrowing awaited (on PostgreSQL the event loop goes on). */
export async function keepRankedAwaited<T extends { id: number }>(
  ranked: (n: number, skip: number, within?: readonly number[]) => T[],
  keep: (ids: number[]) => Promise<Set<number>>,
  limit: number,
  window = Infinity,
  narrow?: (max: number) => Promise<number[] | null>,
): Promise<T[]> {
  const steps = rankedSteps(ranked, limit, window, narrow !== undefined);
  for (let next = steps.next(); ;) {
    if (next.done) return next.value;
    const need = next.value;
    next = steps.next('keep' in need ? await keep(need.keep) : await narrow!(need.narrow));
  }
}

/** What the loop asks its driver for: which of these ids pass, or the filter's ids if few. */
type Need = { keep: number[] } | { narrow: number };

/**
 * keepRanked's loop, once for both drivers (the synchronous and the awaited): it yields what
 * it needs from PostgreSQL and is handed the answer.
 */
function* rankedSteps<T extends { id: number }>(
  ranked: (n: number, skip: number, within?: readonly number[]) => T[],
  limit: number,
  window: number,
  canNarrow: boolean,
): Generator<Need, T[], Set<number> | number[] | null> {
  const out: T[] = [];
  let read = 0;
  let size = Math.min(window, Math.max(limit * 2, 50));
  while (out.length < limit && read < window) {
    const chunk = ranked(Math.min(size, window - read), read);
    if (chunk.length === 0) break;
    const pass = (yield { keep: chunk.map((h) => h.id) }) as Set<number>;
    for (const h of chunk) if (pass.has(h.id) && out.length < limit) out.push(h);
    if (chunk.length < size) break;
    read += chunk.length;
    if (read === chunk.length && out.length < limit && canNarrow) {
      const within = (yield { narrow: NARROW }) as number[] | null;
      if (within !== null) return within.length === 0 ? [] : ranked(limit, 0, within);
    }
    size = Math.min(size * 2, 2000);
  }
  return out;
}
