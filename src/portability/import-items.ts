/** What an import reports: an item per line decided, and the counts. */
export type ImportAction = 'created' | 'reinforced' | 'skipped' | 'refused';

export interface ImportItem {
  line: number;
  action: ImportAction;
  kind: 'memory' | 'service' | 'line';
  /** The memory made or reinforced, or the one that made it a skip. */
  memoryId: number | null;
  text: string | null;
  why: string;
}

export interface ImportReport {
  dryRun: boolean;
  /** Memory lines (and lines that are neither memory nor service). */
  counts: Record<ImportAction, number>;
  /** Service description lines. */
  services: Record<ImportAction, number>;
  /** The first items (MAX_ITEMS); `counts` has them all. */
  items: ImportItem[];
  /** Lines read (the header included). */
  lines: number;
}

export const MAX_ITEMS = 2000;

export function refuse(n: number, kind: ImportItem['kind'], why: string): ImportItem {
  return { line: n, action: 'refused', kind, memoryId: null, text: null, why };
}
