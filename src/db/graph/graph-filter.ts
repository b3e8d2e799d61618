/** An idea filter as SQL: the WHERE terms every graph search adds after its own. */
import type { IdeaFilter } from './graph-search-types.js';

export function filterSql(
  f: IdeaFilter,
  alias: string,
): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (f.intents && f.intents.length > 0) {
    where.push(`${alias}.intent IN (${f.intents.map(() => '?').join(',')})`);
    params.push(...f.intents);
  }
  if (f.openOnly) where.push(`${alias}.answered = 0`);
  if (f.since !== undefined) {
    where.push(`${alias}.created_at >= ?`);
    params.push(f.since);
  }
  if (f.until !== undefined) {
    where.push(`${alias}.created_at < ?`);
    params.push(f.until);
  }
  if (f.sessions && f.sessions.length > 0) {
    where.push(`${alias}.session IN (${f.sessions.map(() => '?').join(',')})`);
    params.push(...f.sessions);
  }
  return { sql: where.map((w) => ` AND ${w}`).join(''), params };
}

export function isFiltered(f: IdeaFilter): boolean {
  return filterSql(f, 'i').params.length > 0 || f.openOnly === true;
}
