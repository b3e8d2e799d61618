/**
 * What a page reads and renders, kept until the database changes (`dataVersion`: any process's
 * commit, this one's writes at once). Every open dashboard polls its tables every few seconds,
 * mostly while nothing was written.
 *
 * Requests that ask for one key while it is being read share that read: while a session writes
 * markers, each of its writes would otherwise send every waiting request to the database at once
 * (with PostgreSQL a network hop away, a busy Events page fell from thousands of answers a second
 * to hundreds). The version is taken before the read, so a write during it makes the next
 * request read again. A failed read is forgotten at once.
 */
export type VersionCache<T> = (key: string, read: () => Promise<T>) => Promise<T>;

export function versionCache<T>(version: () => string, size: number): VersionCache<T> {
  const entries = new Map<string, { version: string; value: Promise<T> }>();
  return (key, read) => {
    const v = version();
    const hit = entries.get(key);
    if (hit?.version === v) return hit.value;
    const value = read();
    entries.delete(key);
    entries.set(key, { version: v, value });
    if (entries.size > size) entries.delete(entries.keys().next().value!);
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key);
    });
    return value;
  };
}
