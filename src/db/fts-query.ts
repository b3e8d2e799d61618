/**
 * An FTS5 query that matches any of some words: each word quoted as a phrase (so no word is
 * read as an operator) and OR-ed. The words come from memory/similarity.ts queryWords.
 */
export function anyOfWords(words: readonly string[]): string {
  return words.map((w) => `"${w}"`).join(' OR ');
}
