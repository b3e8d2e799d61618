/**
 * Awaited work that must not overlap for the same key, in this process: a call runs once every
 * earlier call holding any of its keys has finished, in the order the calls were made. The
 * awaited memory changes use it per memory, so that two of this process's own re-observations of
 * one memory do not read the same row and then undo each other's write; another process's are
 * met by the write's guard (memories/memory-writes.ts).
 *
 * Written by hand: a map of promise tails is all it takes, and a lock library would bring
 * timeouts and fairness options this does not need.
 */
export type KeyedQueue<K> = <T>(keys: readonly K[], fn: () => Promise<T>) => Promise<T>;

export function keyedQueue<K>(): KeyedQueue<K> {
  const tails = new Map<K, Promise<void>>();
  return async (keys, fn) => {
    const unique = [...new Set(keys)];
    const before = unique.flatMap((k) => tails.get(k) ?? []);
    let release = () => {};
    const mine = new Promise<void>((resolve) => (release = resolve));
    // Registered at once, before any wait: later calls queue behind this one.
    for (const k of unique) tails.set(k, mine);
    try {
      await Promise.all(before);
      return await fn();
    } finally {
      release();
      for (const k of unique) if (tails.get(k) === mine) tails.delete(k);
    }
  };
}
