/** What the graph's row stores share: the columns they select and reading ideas' rows. */
import type { IdeaRow } from './graph-rows.js';

export const SPAN_COLUMNS = `id, session, parent_id AS parentId, name, summary, source_file AS sourceFile,
  start_line AS startLine, end_line AS endLine, depth, created_at AS createdAt, ended_at AS endedAt`;
export const IDEA_COLUMNS = `i.id, i.span_id AS spanId, i.session, i.content, i.intent, i.confidence,
  i.answered, i.role, i.source_file AS sourceFile, i.source_line AS sourceLine,
  i.created_at AS createdAt`;

export type IdeaRecord = Omit<IdeaRow, 'answered'> & { answered: number | null };

export function toIdea(r: IdeaRecord): IdeaRow {
  return { ...r, answered: r.answered === null ? null : r.answered === 1 };
}

export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(',');
}

const CHUNK = 500;

/** Runs `query` over ids in chunks SQLite accepts. */
export function chunked<T>(ids: readonly number[], query: (chunk: number[]) => T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...query(ids.slice(i, i + CHUNK)));
  return out;
}

/** The same, awaited: the chunks are read side by side, their rows kept in chunk order. */
export async function chunkedAwaited<T, K = number>(
  ids: readonly K[],
  query: (chunk: K[]) => Promise<T[]>,
): Promise<T[]> {
  const parts: Promise<T[]>[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) parts.push(query(ids.slice(i, i + CHUNK)));
  return (await Promise.all(parts)).flat();
}
