/**
 * What a memory tool may leave out, inferred from the text: the category (by the words of each
 * kind of operational knowledge; `behavior` when none fits) and the service (the one known
 * service the text names, if exactly one). A wrong guess costs little: the operator can edit it,
 * and dedup compares memories of a service whatever their category.
 */
export { inferCategory } from '../memory/index.js';

/** The one known service the text names as a word (`jellyfin`, `postgresql`), or null. */
export function inferService(text: string, known: readonly string[]): string | null {
  const words = new Set(text.toLowerCase().match(/[a-z0-9][a-z0-9._-]*[a-z0-9]|[a-z0-9]/g) ?? []);
  const named = known.filter((name) => words.has(name.toLowerCase()));
  return named.length === 1 ? named[0]! : null;
}
