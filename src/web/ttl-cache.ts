/** A value recomputed at most once per `ttlMs` (for lists such as the known services in a filter). */
export function cachedFor<T>(ttlMs: number, now: () => number, load: () => T): () => T {
  let at = -Infinity;
  let value: T | undefined;
  return () => {
    const t = now();
    if (value === undefined || t - at > ttlMs) {
      value = load();
      at = t;
    }
    return value;
  };
}
