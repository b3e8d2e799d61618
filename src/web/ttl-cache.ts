/**
 * A value recomputed at most once per `ttlMs` (for lists such as the known services in a filter);
 * a promise that rejects is dropped, so that the next call tries again.
 */
export function cachedFor<T>(ttlMs: number, now: () => number, load: () => T): () => T {
  let at = -Infinity;
  let value: T | undefined;
  return () => {
    const t = now();
    if (value === undefined || t - at > ttlMs) {
      const loaded = load();
      value = loaded;
      at = t;
      // A load that failed is not kept: the next call loads again.
      if (loaded instanceof Promise) {
        loaded.catch(() => {
          if (value === loaded) value = undefined;
        });
      }
    }
    return value;
  };
}
