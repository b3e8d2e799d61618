/** The texts every backend accepts: checked once, before anything is sent anywhere. */
import { AppError } from '../errors.js';

/**
 * Longer texts are cut to this many characters. The meaning of a memory or an alert is in its
 * head; the cap bounds the time and memory one call can take (a tool's whole output, say).
 */
export const MAX_TEXT_CHARS = 8000;

/** Non-empty strings, each cut to `MAX_TEXT_CHARS` (never inside a surrogate pair). */
export function checkTexts(texts: readonly string[]): string[] {
  if (!Array.isArray(texts)) {
    throw new AppError('invalid_input', 'texts to embed must be an array of strings', {
      data: { field: 'texts' },
    });
  }
  return texts.map((text, i) => {
    if (typeof text !== 'string' || text.trim() === '') {
      throw new AppError(
        'invalid_input',
        `text ${i} to embed is ${typeof text === 'string' ? 'empty' : `a ${typeof text}, not a string`}`,
        { data: { field: `texts[${i}]` } },
      );
    }
    if (text.length <= MAX_TEXT_CHARS) return text;
    const end = /[\uD800-\uDBFF]/.test(text[MAX_TEXT_CHARS - 1]!)
      ? MAX_TEXT_CHARS - 1
      : MAX_TEXT_CHARS;
    return text.slice(0, end);
  });
}
