/**
 * Memory fields from a form (strings) or a JSON body (typed), with errors that name the field.
 * The same rules for the dashboard and the API.
 */
import { IMPORTANCES, type Importance, type Stores } from '../db/index.js';
import { AppError, invalidField as invalid } from '../errors.js';
import {
  type Category,
  validateCategory,
  validateConfidence,
  validateObservation,
  validateService,
} from '../memory/index.js';
import type { MemoryPatch } from '../knowledge/index.js';
import { boolField } from './bool-field.js';

type Input = Record<string, unknown>;

export const MAX_BULK_IDS = 10_000;

function text(input: Input, field: string): string | undefined {
  const v = input[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(field, 'must be text');
  // A browser sends a textarea's line ends as CRLF; any other control character is refused later.
  return v.replace(/\r\n?/g, '\n');
}

function confidence(input: Input): number | undefined {
  const v = input.confidence;
  if (v === undefined || v === null || v === '') return undefined;
  return validateConfidence(v);
}

export interface MemoryCreate {
  service: string | null;
  category: Category;
  observation: string;
  confidence?: number;
  pinned: boolean;
}

export function parseMemoryCreate(input: Input): MemoryCreate {
  const category = text(input, 'category');
  if (!category) throw invalid('category', 'is required');
  const observation = text(input, 'observation');
  if (observation === undefined) throw invalid('observation', 'is required');
  const c = confidence(input);
  return {
    service: validateService(text(input, 'service')),
    category: validateCategory(category),
    observation: validateObservation(observation),
    ...(c === undefined ? {} : { confidence: c }),
    pinned: boolField(input, 'pinned') ?? false,
  };
}

function importance(input: Input): Importance | undefined {
  const v = text(input, 'importance');
  if (v === undefined || v === '') return undefined;
  const lower = v.trim().toLowerCase();
  if (!(IMPORTANCES as readonly string[]).includes(lower)) {
    throw invalid(
      'importance',
      `must be one of ${IMPORTANCES.join(', ')}, got ${JSON.stringify(v)}`,
    );
  }
  return lower as Importance;
}

export function parseMemoryPatch(input: Input): MemoryPatch {
  const observation = text(input, 'observation');
  const c = confidence(input);
  const active = boolField(input, 'active');
  const pinned = boolField(input, 'pinned');
  const level = importance(input);
  const patch: MemoryPatch = {
    ...(observation === undefined ? {} : { observation: validateObservation(observation) }),
    ...(c === undefined ? {} : { confidence: c }),
    ...(active === undefined ? {} : { active }),
    ...(pinned === undefined ? {} : { pinned }),
    ...(level === undefined ? {} : { importance: level }),
  };
  if (Object.keys(patch).length === 0) {
    throw invalid(
      'body',
      'give at least one of observation, confidence, active, pinned, importance',
    );
  }
  return patch;
}

/** An archive reason (optional): text, printable, at most 2,000 characters; null when empty. */
export function parseArchiveReason(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid('reason', 'must be text');
  const reason = value.replace(/\r\n?/g, '\n').trim();
  return reason === '' ? null : reason;
}

/** Memory ids from a list of strings or numbers: positive whole numbers, at most MAX_BULK_IDS. */
export function parseIds(values: unknown): number[] {
  const list = Array.isArray(values) ? values : values === undefined ? [] : [values];
  if (list.length === 0) throw invalid('ids', 'select at least one memory');
  if (list.length > MAX_BULK_IDS) throw invalid('ids', `at most ${MAX_BULK_IDS} at once`);
  return list.map((v) => {
    const n =
      typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n <= 0)
      throw invalid('ids', `"${String(v)}" is not a memory id`);
    return n;
  });
}

/** A path id: a positive whole number, or a 404-worthy error. */
export function parseId(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new AppError('not_found', `no memory ${value}`);
  return Number(value);
}

/** The first of `ids` that names no memory (read awaited, side by side), if one does not. */
export async function firstMissing(
  stores: Pick<Stores, 'memories'>,
  ids: readonly number[],
): Promise<number | undefined> {
  const found = await Promise.all(ids.map((id) => stores.memories.getAwaited(id)));
  return ids.find((_, i) => !found[i]);
}
