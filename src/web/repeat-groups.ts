/**
 * Folding repeated lines into one: the dashboard's lists (the Overview's feed, the blocked
 * attempts) would otherwise show the same line every minute and drown what changed.
 */

export interface Repeated<T> {
  /** The newest of the group, which the line shows. */
  item: T;
  count: number;
  firstAt: number;
  lastAt: number;
}

/**
 * Groups `items` (newest first) by `keyOf`: each group sits where its newest item was, with how
 * many it holds and when the first and last were seen. A null key never groups.
 */
export function groupRepeats<T>(
  items: readonly T[],
  keyOf: (item: T) => string | null,
  atOf: (item: T) => number,
): Repeated<T>[] {
  const groups: Repeated<T>[] = [];
  const byKey = new Map<string, Repeated<T>>();
  for (const item of items) {
    const key = keyOf(item);
    const at = atOf(item);
    const group = key === null ? undefined : byKey.get(key);
    if (group) {
      group.count += 1;
      group.firstAt = Math.min(group.firstAt, at);
      group.lastAt = Math.max(group.lastAt, at);
      continue;
    }
    const fresh = { item, count: 1, firstAt: at, lastAt: at };
    groups.push(fresh);
    if (key !== null) byKey.set(key, fresh);
  }
  return groups;
}
