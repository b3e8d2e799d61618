/**
 * Failed sign-ins per client: after `maxFailures` inside `windowMs` that client is refused until
 * the window ends. Keyed by the caller (one bucket per client address), so a stranger's guesses
 * never lock the operator out; the map holds at most `maxEntries` clients, dropping expired and
 * then least recently seen ones first, so a flood of addresses cannot grow it without bound.
 */
export interface ThrottleOptions {
  maxFailures: number;
  windowMs: number;
  maxEntries: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = {
  maxFailures: 10,
  windowMs: 60_000,
  maxEntries: 10_000,
};

interface Failures {
  count: number;
  since: number;
}

export function createLoginThrottle(options: ThrottleOptions = DEFAULT_THROTTLE) {
  const { maxFailures, windowMs, maxEntries } = options;
  // A Map iterates in insertion order; re-inserting on every failure keeps it least recent first.
  const records = new Map<string, Failures>();
  const live = (r: Failures | undefined, now: number): r is Failures =>
    r !== undefined && now - r.since < windowMs;

  return {
    /** True when `key` has used up its attempts for now. */
    blocked(key: string, now: number): boolean {
      const r = records.get(key);
      if (!live(r, now)) {
        records.delete(key);
        return false;
      }
      return r.count >= maxFailures;
    },

    failed(key: string, now: number): void {
      const r = records.get(key);
      records.delete(key);
      records.set(
        key,
        live(r, now) ? { count: r.count + 1, since: r.since } : { count: 1, since: now },
      );
      // Expired entries at the old end go first; then, if still full, the least recent client.
      for (const [k, old] of records) {
        if (records.size <= maxEntries && live(old, now)) break;
        records.delete(k);
      }
    },

    succeeded(key: string): void {
      records.delete(key);
    },

    /** Clients currently tracked (for tests and the bench). */
    get size(): number {
      return records.size;
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
