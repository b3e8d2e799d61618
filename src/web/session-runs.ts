/**
 * The Sessions list as runs: one row per chain (its tiers, what it came to, its summary, cost
 * and wall time), each with its sessions for the expansion. Durations are wall time between the
 * recorded start and end, so they agree with the times shown beside them.
 */
import {
  type RunOutcome,
  runOutcome,
  type SessionFilter,
  type SessionRow,
  type SessionSummary,
  type Stores,
} from '../db/index.js';

/** Wall time from the recorded start to the recorded end; null while running. */
export function wallDurationMs(s: Pick<SessionRow, 'startedAt' | 'endedAt'>): number | null {
  return s.endedAt === null ? null : Math.max(0, s.endedAt - s.startedAt);
}

export interface RunRow {
  root: SessionRow;
  /** The chain's sessions, first tier first, each with its wall duration. */
  sessions: { s: SessionRow; durationMs: number | null }[];
  last: SessionRow;
  outcome: RunOutcome;
  tiers: number[];
  /** Sum of the known costs; null when no session reported one. */
  costUsd: number | null;
  /** From the first session's start to the last one's end; null while it runs. */
  durationMs: number | null;
  summary: SessionSummary | null;
  repeats: number;
}

/**
 * The chains of one page of the Sessions list, newest first, read awaited (every open tab polls
 * it: on PostgreSQL the event loop goes on while the server answers).
 */
export async function runRows(
  stores: Pick<Stores, 'sessions' | 'sessionRecords' | 'alertRepeats'>,
  page: { limit: number; offset: number; filter?: SessionFilter },
): Promise<RunRow[]> {
  const roots = await stores.sessions.chainRootsAwaited(page);
  const byRoot = new Map<number, SessionRow[]>(roots.map((id) => [id, []]));
  for (const s of await stores.sessions.chainSessionsAwaited(roots)) {
    byRoot.get(s.chainRoot)?.push(s);
  }
  const chains = roots
    .map((id) => byRoot.get(id)!)
    .filter((c) => c.length > 0)
    .map((c) => c.sort((a, b) => a.startedAt - b.startedAt || a.id - b.id));
  const lastIds = chains.map((c) => c[c.length - 1]!.id);
  const rootIds = chains.map((c) => c[0]!.id);
  const [signals, summaries, repeats] = await Promise.all([
    stores.sessions.outcomeSignalsAwaited(lastIds),
    stores.sessionRecords.summariesAwaited(rootIds),
    stores.alertRepeats.forSessionsAwaited(rootIds),
  ]);
  return chains.map((c) => {
    const root = c[0]!;
    const last = c[c.length - 1]!;
    const sig = signals.get(last.id);
    const outcome = sig ? runOutcome(sig) : { kind: 'running' as const, reasons: [] };
    const costs = c.map((s) => s.costUsd).filter((v): v is number => v !== null);
    return {
      root,
      sessions: c.map((s) => ({ s, durationMs: wallDurationMs(s) })),
      last,
      outcome,
      tiers: c.map((s) => s.tier),
      costUsd: costs.length ? costs.reduce((a, b) => a + b, 0) : null,
      durationMs: last.endedAt === null ? null : Math.max(0, last.endedAt - root.startedAt),
      summary: summaries.get(root.id) ?? null,
      repeats: repeats.get(root.id) ?? 0,
    };
  });
}
