/**
 * What importing a Claude Ops database reports: per kind of row, how many were found, imported,
 * imported before or skipped; the problems and notes, each with its first few source ids; and the
 * tables left behind, with why.
 */
import type { Category } from '../../memory/policy.js';
import type { ClaudeOpsSource } from './claudeops-source.js';

export type ImportKind = 'session' | 'event' | 'memory' | 'cooldown';
export const KINDS: ImportKind[] = ['session', 'event', 'memory', 'cooldown'];

export interface KindCounts {
  /** Rows in the Claude Ops database. */
  found: number;
  /** Added by this run (or, in a dry run, that it would add). */
  imported: number;
  /** Imported by an earlier run. */
  already: number;
  /** Not importable; see `problems`. */
  skipped: number;
}

/** Something about some rows, with how many and the first few ids. */
export interface ImportRemark {
  kind: ImportKind;
  message: string;
  count: number;
  sourceIds: number[];
}

export interface ClaudeOpsImportReport {
  path: string;
  identity: string;
  schemaVersion: number | null;
  dryRun: boolean;
  counts: Record<ImportKind, KindCounts>;
  /** Rows skipped, and why. */
  problems: ImportRemark[];
  /** Rows imported with a value changed or dropped, and how. */
  notes: ImportRemark[];
  /** Tables left behind, and why. */
  notImported: { table: string; rows: number; why: string }[];
}

export interface ClaudeOpsImportOptions {
  now: number;
  dryRun: boolean;
  /**
   * The decay state to store for a memory whose confidence was `confidence` when it last changed
   * (`lastChangedAt`): computed by the caller with src/memory, so that decay goes on from there.
   */
  decayState(m: { confidence: number; lastChangedAt: number; now: number }): {
    baseConfidence: number;
    nextDecayAt: number;
  };
  /** The instance an imported memory belongs to (FLEET when shared); `local` when omitted. */
  memoryInstance?(m: { service: string | null; category: Category }): string;
}

const OTHER_TABLES: Record<string, string> = {
  health_checks: 'Claude Ops never wrote it at run time; watchkeeper keeps health as events',
  service_health_streak:
    'Claude Ops never wrote it at run time; watchkeeper keeps health as events',
  config: 'dashboard settings Claude Ops never read back; set them in the environment instead',
};

const MAX_IDS = 5;

/** The counts and remarks of one import, filled in as it goes. */
export function importTally() {
  const counts = Object.fromEntries(
    KINDS.map((k) => [k, { found: 0, imported: 0, already: 0, skipped: 0 }]),
  ) as Record<ImportKind, KindCounts>;
  const problems = new Map<string, ImportRemark>();
  const notes = new Map<string, ImportRemark>();
  const remark = (
    into: Map<string, ImportRemark>,
    kind: ImportKind,
    id: number,
    message: string,
  ) => {
    const key = `${kind}\u0000${message}`;
    const r = into.get(key) ?? { kind, message, count: 0, sourceIds: [] };
    r.count += 1;
    if (r.sourceIds.length < MAX_IDS) r.sourceIds.push(id);
    into.set(key, r);
  };
  const skip = (kind: ImportKind, id: number, message: string) => {
    counts[kind].skipped += 1;
    remark(problems, kind, id, message);
  };
  const note = (kind: ImportKind, id: number, message: string) => remark(notes, kind, id, message);
  return { counts, problems, notes, skip, note };
}

export function importReport(
  source: ClaudeOpsSource,
  dryRun: boolean,
  counts: Record<ImportKind, KindCounts>,
  problems: Map<string, ImportRemark>,
  notes: Map<string, ImportRemark>,
): ClaudeOpsImportReport {
  return {
    path: source.path,
    identity: source.identity,
    schemaVersion: source.schemaVersion,
    dryRun,
    counts,
    problems: [...problems.values()],
    notes: [...notes.values()],
    notImported: source.otherTables.map((t) => ({
      table: t.table,
      rows: t.rows,
      why:
        (OTHER_TABLES[t.table] ?? 'not a table watchkeeper keeps') +
        (t.keys ? ` (${t.keys.join(', ')})` : ''),
    })),
  };
}
