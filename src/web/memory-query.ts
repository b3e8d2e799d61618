/**
 * Memory list filters (and the page's search words) from a query string, shared by the Memories
 * page and the API. The same
 * rule as the event filters (event-query.ts): a value that is not understood is left out and
 * listed in `problems`; the page says it ignored it, the API answers 400 naming the field.
 */
import { IMPORTANCES, type Importance, type MemoryFilter } from '../db/index.js';
import { type Category, CATEGORIES, isCategory } from '../memory/index.js';

/** The longest search query (the API refuses longer ones; the page cuts them). */
export const MAX_QUERY_LENGTH = 2000;

export const MEMORY_STATUSES = ['all', 'active', 'inactive'] as const;
type Status = (typeof MEMORY_STATUSES)[number];
/** Archived by someone (`yes`), not archived (`no`), or either (empty). */
export const ARCHIVE_STATES = ['yes', 'no'] as const;
type ArchiveState = (typeof ARCHIVE_STATES)[number];

export interface MemoryListQuery {
  /** Search words (the page's search box); empty lists memories as they are. */
  q: string;
  service: string;
  category: Category | '';
  status: Status;
  importance: Importance | '';
  archived: ArchiveState | '';
  /** One instance's memories, `fleet` for the shared ones; empty: every instance's. */
  instance: string;
  page: number;
  /** The filter values as sent (trimmed), shown back when ignored. */
  raw: { status: string; category: string; importance: string; archived: string; instance: string };
  problems: {
    field: 'status' | 'category' | 'importance' | 'archived' | 'instance';
    message: string;
  }[];
}

/** An instance name (WATCHKEEPER_INSTANCE's rule), or `fleet`. */
const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

const ARCHIVED_WORDS = new Map<string, ArchiveState>([
  ['yes', 'yes'],
  ['true', 'yes'],
  ['1', 'yes'],
  ['no', 'no'],
  ['false', 'no'],
  ['0', 'no'],
]);

/** Filters from the query string. Never throws: unusable values are listed in `problems`. */
export function listQuery(q: (name: string) => string | undefined): MemoryListQuery {
  const raw = {
    status: (q('status') ?? '').trim(),
    category: (q('category') ?? '').trim(),
    importance: (q('importance') ?? '').trim(),
    archived: (q('archived') ?? '').trim(),
    instance: (q('instance') ?? '').trim(),
  };
  const problems: MemoryListQuery['problems'] = [];
  const importance = raw.importance.toLowerCase();
  const knownImportance = (IMPORTANCES as readonly string[]).includes(importance);
  if (importance !== '' && !knownImportance) {
    problems.push({ field: 'importance', message: `must be one of ${IMPORTANCES.join(', ')}` });
  }
  const archived = ARCHIVED_WORDS.get(raw.archived.toLowerCase());
  if (raw.archived !== '' && archived === undefined) {
    problems.push({ field: 'archived', message: 'must be yes, no, true or false' });
  }
  const category = raw.category.toLowerCase();
  if (category !== '' && !isCategory(category)) {
    problems.push({ field: 'category', message: `must be one of ${CATEGORIES.join(', ')}` });
  }
  const status = raw.status.toLowerCase();
  const knownStatus = (MEMORY_STATUSES as readonly string[]).includes(status);
  if (status !== '' && !knownStatus) {
    problems.push({ field: 'status', message: `must be one of ${MEMORY_STATUSES.join(', ')}` });
  }
  const instanceOk = raw.instance === '' || INSTANCE_NAME.test(raw.instance);
  if (!instanceOk) {
    problems.push({
      field: 'instance',
      message: 'must be an instance name (letters, digits, ".", "_", "-") or fleet',
    });
  }
  const pageNo = Number(q('page') ?? '1');
  return {
    // A query longer than the API allows is cut, not refused: the page never errors on typing.
    q: (q('q') ?? '').trim().slice(0, MAX_QUERY_LENGTH),
    service: (q('service') ?? '').trim().toLowerCase(),
    category: isCategory(category) ? category : '',
    status: knownStatus ? (status as Status) : 'all',
    importance: knownImportance ? (importance as Importance) : '',
    archived: archived ?? '',
    instance: instanceOk ? raw.instance : '',
    page: Number.isInteger(pageNo) && pageNo >= 1 && pageNo <= 100_000 ? pageNo : 1,
    raw,
    problems,
  };
}

export function toFilter(q: MemoryListQuery): MemoryFilter {
  return {
    ...(q.service === '' ? {} : { service: q.service === 'general' ? null : q.service }),
    ...(q.category === '' ? {} : { category: q.category }),
    status: q.status,
    ...(q.importance === '' ? {} : { importance: q.importance }),
    ...(q.archived === '' ? {} : { archived: q.archived === 'yes' }),
    ...(q.instance === '' ? {} : { instance: q.instance }),
  };
}
