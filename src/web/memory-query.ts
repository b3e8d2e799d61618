/** Memory list filters from a query string, shared by the Memories page and the API. */
import type { MemoryFilter } from '../db/index.js';
import { type Category, isCategory } from '../memory/index.js';

const STATUSES = ['all', 'active', 'inactive'] as const;
type Status = (typeof STATUSES)[number];

export interface MemoryListQuery {
  service: string;
  category: Category | '';
  status: Status;
  page: number;
}

/** Filters from the query string; unknown values fall back to "all" instead of failing a page. */
export function listQuery(q: (name: string) => string | undefined): MemoryListQuery {
  const category = (q('category') ?? '').toLowerCase();
  const status = (q('status') ?? 'all').toLowerCase();
  const pageNo = Number(q('page') ?? '1');
  return {
    service: (q('service') ?? '').trim().toLowerCase(),
    category: isCategory(category) ? category : '',
    status: (STATUSES as readonly string[]).includes(status) ? (status as Status) : 'all',
    page: Number.isInteger(pageNo) && pageNo >= 1 && pageNo <= 100_000 ? pageNo : 1,
  };
}

export function toFilter(q: MemoryListQuery): MemoryFilter {
  return {
    ...(q.service === '' ? {} : { service: q.service === 'general' ? null : q.service }),
    ...(q.category === '' ? {} : { category: q.category }),
    status: q.status,
  };
}
