/** Validation of operator- and agent-supplied memory fields, with errors that name the field. */
import { AppError } from '../errors.js';
import { checkServiceName, findControlCharacter } from '../text-rules.js';
import { CATEGORIES, type Category, isCategory } from './policy.js';

export const MAX_OBSERVATION_LENGTH = 2000;
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

function invalid(field: string, message: string): AppError {
  return new AppError('invalid_input', `${field}: ${message}`, { data: { field } });
}

export function validateCategory(value: string): Category {
  const lower = value.trim().toLowerCase();
  if (!isCategory(lower)) {
    throw invalid('category', `"${value}" is not one of ${CATEGORIES.join(', ')}`);
  }
  return lower;
}

/** Returns the confidence as a number in 0..1, or throws naming the field. */
export function validateConfidence(value: unknown): number {
  // Number() would take "0x1", "1e0" or "  .5"; only a plain decimal is a confidence.
  const n = typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw invalid('confidence', `must be a number from 0 to 1, got ${JSON.stringify(value)}`);
  }
  return n;
}

export function validateObservation(value: string): string {
  const text = value.trim();
  if (text.length === 0) throw invalid('observation', 'must not be empty');
  rejectControlCharacters('observation', text);
  if (text.length > MAX_OBSERVATION_LENGTH) {
    throw invalid(
      'observation',
      `is ${text.length} characters, over the limit of ${MAX_OBSERVATION_LENGTH}`,
    );
  }
  return text;
}

/** Operator input with a control character is refused (model text is stripped instead). */
export function rejectControlCharacters(field: string, text: string): void {
  const found = findControlCharacter(text);
  if (found) {
    throw invalid(field, `contains the control character ${found.code} at position ${found.index}`);
  }
}

/** A service name, lower-cased; empty or `general` means a general memory (null). */
export function validateService(value: string | null | undefined): string | null {
  const raw = (value ?? '').trim();
  if (raw === '' || raw.toLowerCase() === 'general') return null;
  const checked = checkServiceName(raw);
  if (!checked.ok) throw invalid('service', checked.reason);
  return checked.name;
}
