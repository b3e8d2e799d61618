/** Validation of operator- and agent-supplied memory fields, with errors that name the field. */
import { invalidField as invalid } from '../errors.js';
import { checkScopeName, checkServiceName, findControlCharacter } from '../text-rules.js';
import { CATEGORIES, type Category, isCategory } from './policy.js';

export const MAX_OBSERVATION_LENGTH = 2000;
/** The longest archive reason, reinforcement evidence or other note kept beside a memory. */
export const MAX_NOTE_LENGTH = MAX_OBSERVATION_LENGTH;
/** The longest description of a service. */
export const MAX_DESCRIPTION_LENGTH = 500;
/** The earliest time a memory may carry (2000-01-01): anything before is a mistake. */
export const EARLIEST_TIME = Date.UTC(2000, 0, 1);
/** How far ahead of this clock another machine's may run: a day. */
export const CLOCK_SKEW_MS = 86_400_000;
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

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

/** A free-text note (evidence, archive reason): trimmed, printable, bounded; null when empty. */
export function validateNote(
  field: string,
  value: string | null | undefined,
  max = MAX_NOTE_LENGTH,
): string | null {
  const text = (value ?? '').trim();
  if (text === '') return null;
  rejectControlCharacters(field, text);
  if (text.length > max) {
    throw invalid(field, `is ${text.length} characters, over the limit of ${max}`);
  }
  return text;
}

/**
 * What a service is: trimmed and at most 500 characters; the operator's (`strict`) without
 * control characters.
 */
export function validateDescription(text: string, strict = true): string {
  const description = text.trim();
  if (strict) rejectControlCharacters('description', description);
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw invalid(
      'description',
      `is ${description.length} characters, over the limit of ${MAX_DESCRIPTION_LENGTH}`,
    );
  }
  return description;
}

/** A memory scope: `ops`, or a scope name (letters, digits, ".", "_", ":" and "-"). */
export function validateScope(value: string, field = 'scope'): string {
  const checked = checkScopeName(value);
  if (!checked.ok) throw invalid(field, checked.reason);
  return checked.name;
}

/**
 * A time a memory carries (epoch ms): not before 2000 and not in the future (beyond a day of
 * another clock's skew), so that a date typed or computed wrong never orders or decays a memory.
 */
export function validateTime(field: string, ms: number, now: number): number {
  if (!Number.isFinite(ms) || ms < EARLIEST_TIME || ms > now + CLOCK_SKEW_MS) {
    const when = Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
    throw invalid(
      field,
      `${when} is not a time a memory can have (from 2000-01-01 to now, ${new Date(now).toISOString()})`,
    );
  }
  return ms;
}
