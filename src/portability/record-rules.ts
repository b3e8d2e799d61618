/**
 * The rules an imported record meets beyond its shape (format.ts): the same as the API's and the
 * memory service's for what they write (words, service and scope names, notes, descriptions), and
 * dates a memory can have. A record that breaks one is refused with the field named; nothing of
 * it is written.
 */
import { AppError, isAppError } from '../errors.js';
import {
  validateDescription,
  validateNote,
  validateObservation,
  validateScope,
  validateService,
  validateTime,
} from '../memory/index.js';
import type { MemoryLine, ServiceLine } from './format.js';

/** A memory record's checked values: the service and the words as they are stored. */
export interface CheckedMemory {
  service: string | null;
  text: string;
}

/** The message of a refusal, or rethrows what is not one. */
export function refusal(err: unknown): string {
  if (!isAppError(err) || err.code !== 'invalid_input') throw err;
  return err.message;
}

function renamed<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!isAppError(err) || err.code !== 'invalid_input') throw err;
    throw new AppError('invalid_input', err.message.replace(/^[\w.]+:/, `${field}:`), {
      data: { field },
    });
  }
}

/** Checks every field of a memory record; throws an invalid_input error naming the first bad one. */
export function checkMemory(r: MemoryLine, now: number): CheckedMemory {
  const service = validateService(r.service);
  const text = renamed('text', () => validateObservation(r.text));
  validateScope(r.scope);
  validateNote('archive_reason', r.archive_reason);
  validateNote('inactive_reason', r.inactive_reason);
  validateNote('provenance.source_ref', r.provenance.source_ref);
  const times: [string, number | null | undefined][] = [
    ['created_at', r.created_at],
    ['updated_at', r.updated_at],
    ['last_reinforced_at', r.last_reinforced_at],
    ['last_surfaced_at', r.last_surfaced_at],
    ['last_accessed_at', r.last_accessed_at],
    ['archived_at', r.archived_at],
  ];
  for (const [field, ms] of times)
    if (ms !== null && ms !== undefined) validateTime(field, ms, now);
  r.history.forEach((h, i) => {
    validateTime(`history.${i}.created_at`, h.created_at, now);
    validateNote(`history.${i}.observation`, h.observation);
    validateNote(`history.${i}.evidence`, h.evidence);
  });
  return { service, text };
}

/** Checks a service description record; returns the service's name as stored. */
export function checkService(s: ServiceLine): string {
  const name = renamed('name', () => validateService(s.name));
  if (name === null) {
    throw new AppError('invalid_input', 'name: a service needs a name', {
      data: { field: 'name' },
    });
  }
  renamed('description', () => validateDescription(s.description));
  return name;
}
