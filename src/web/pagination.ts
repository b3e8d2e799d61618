/** Page numbers with totals: "41–60 of 1,234", for the Sessions and Events lists. */
export interface PageInfo {
  page: number;
  pages: number;
  total: number;
  size: number;
  offset: number;
  /** "41–60 of 1,234", or "0 of 0". */
  text: string;
}

const n = (x: number) => x.toLocaleString('en-US');

/** The page asked for, kept within the pages there are (a page past the end shows the last). */
export function pageInfo(requested: number, size: number, total: number): PageInfo {
  const pages = Math.max(1, Math.ceil(total / size));
  const page = Math.min(Math.max(1, requested), pages);
  const offset = (page - 1) * size;
  const last = Math.min(offset + size, total);
  return {
    page,
    pages,
    total,
    size,
    offset,
    text: total === 0 ? '0 of 0' : `${n(offset + 1)}–${n(last)} of ${n(total)}`,
  };
}
