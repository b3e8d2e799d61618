/** Validation of operator- and agent-supplied memory fields, with errors that name the field. */
import { AppError } from '../errors.js';
import { CATEGORIES, type Category, isCategory } from './policy.js';

export const MAX_OBSERVATION_LENGTH = 2000;
const SERVICE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

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
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw invalid('confidence', `must be a number from 0 to 1, got ${JSON.stringify(value)}`);
  }
  return n;
}

export function validateObservation(value: string): string {
  const text = value.trim();
  if (text.length === 0) throw invalid('observation', 'must not be empty');
  if (text.length > MAX_OBSERVATION_LENGTH) {
    throw invalid(
      'observation',
      `is ${text.length} characters, over the limit of ${MAX_OBSERVATION_LENGTH}`,
    );
  }
  return text;
}

/** A service name, lower-cased; empty or `general` means a general memory (null). */
export function validateService(value: string | null | undefined): string | null {
  const name = (value ?? '').trim().toLowerCase();
  if (name === '' || name === 'general') return null;
  if (!SERVICE.test(name)) {
    throw invalid(
      'service',
      `"${value}" may hold only letters, digits, ".", "_" and "-" (100 at most)`,
    );
  }
  return name;
}
