/**
 * What a result line says about the run: whether it succeeded and, when it did not, an error
 * text that is never empty. The CLI's own words come first; a result line that breaks the format
 * (a `subtype` that is not text, say) is named as such, so a failed run never shows a blank error.
 */
import { stripControlCharacters } from '../text-rules.js';
import type { ResultMessage } from './types.js';

export function resultSucceeded(r: ResultMessage): boolean {
  return r.subtype === 'success' && !r.isError;
}

/** Why the run failed, from the result line. Meant for a result that did not succeed. */
export function resultError(r: ResultMessage): string {
  const errors = r.errors.map((e) => stripControlCharacters(e).trim()).filter((e) => e !== '');
  if (errors.length > 0) return errors.join('; ');
  const text = r.result === null ? '' : stripControlCharacters(r.result).trim();
  if (text !== '') return text;
  const subtype: unknown = r.raw.subtype;
  if (subtype === undefined) return 'the result line has no "subtype" field';
  if (typeof subtype !== 'string') {
    return `the result line's "subtype" field is ${describe(subtype)}, not text`;
  }
  if (subtype.trim() === '') return 'the result line\'s "subtype" field is empty';
  if (subtype === 'success') return 'the CLI reported an error (is_error) without a message';
  return `the CLI reported ${stripControlCharacters(subtype)}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const shown = String(value);
  return `a ${typeof value} (${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown})`;
}
