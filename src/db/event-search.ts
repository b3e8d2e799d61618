/**
 * Free text typed into the Events search, as an FTS5 query over events_fts: every word must
 * occur, each as a word prefix ("jelly" finds "jellyfin"). Quoting each word keeps FTS5 syntax
 * (AND, NEAR, quotes, column filters) out of what an operator types.
 */
const WORD = /[\p{L}\p{N}_]+/gu;
const MAX_WORDS = 16;

/** The FTS5 query, or null when the text holds no word to look for. */
export function eventTextQuery(text: string): string | null {
  const words = (text.match(WORD) ?? []).slice(0, MAX_WORDS);
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"*`).join(' ');
}
