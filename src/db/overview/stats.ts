/**
 * Read-only aggregates for the dashboard overview and the stats API: counts over sessions,
 * events and memories, the latest run's chain, the merged recent-activity feed, and the distinct
 * services named by events. Nothing here writes.
 */
import type { EventRow } from '../events/events.js';
import type { HistoryAction } from '../memories/memories.js';
import { allAwaited, getAwaited } from '../engine.js';
import type { Db } from '../open.js';
import {
  OUTCOME_SIGNAL_COLUMNS,
  type OutcomeSignals,
  RUN_OUTCOMES,
  type RunOutcome,
  type RunOutcomeKind,
  runOutcome,
} from '../sessions/run-outcome.js';
import type { SessionStatus, SessionTrigger } from '../sessions/sessions.js';

/**
 * The overview numbers. A chain is a root session (no parent) and the escalations below it;
 * it has finished when its last session is no longer running, and succeeded when that last
 * session completed (a completed run, or an escalated run whose higher tier completed).
 * Imported transcripts (trigger 'import') are not runs: they count in no run figure here.
 */
export interface OverviewCounts {
  /**
   * Sessions with no parent: one per run started by the schedule, an operator, the API or an
   * alert (imports left out).
   */
  rootSessions: number;
  finishedChains: number;
  succeededChains: number;
  /** succeededChains / finishedChains, or null before any chain has finished. */
  successRate: number | null;
  /** Finished chains whose outcome is `resolved` (run-outcome.ts). */
  resolvedChains: number;
  /** Finished chains not resolved, whatever else they came to (the API's needs_human_runs). */
  needsHumanChains: number;
  /** Chains by outcome (running ones included). */
  outcomes: Record<RunOutcomeKind, number>;
  /** Sessions started by an escalation (trigger 'escalation'). */
  escalations: number;
  /** Sum of cost_usd over every session, escalations included. */
  totalCostUsd: number;
  activeMemories: number;
  inactiveMemories: number;
  /** Critical events created at or after the `since` given to `counts`. */
  criticalEvents: number;
}

/** The latest root session and what its chain came to. */
export interface LastRun {
  rootId: number;
  rootStatus: SessionStatus;
  trigger: SessionTrigger;
  /** The chain's last session and its status. */
  lastId: number;
  status: SessionStatus;
  /** What the run came to (run-outcome.ts). */
  outcome: RunOutcome;
  tierReached: number;
  sessions: number;
  startedAt: number;
  /** When the last session ended; null while it runs. */
  endedAt: number | null;
  /** Sum of cost_usd over the chain; null when no session reported one. */
  costUsd: number | null;
  /** The last session's final response, unclipped. */
  response: string | null;
  simulated: boolean;
}

export type ActivityItem =
  | {
      kind: 'session';
      at: number;
      id: number;
      status: SessionStatus;
      trigger: SessionTrigger;
      tier: number;
      parentSessionId: number | null;
    }
  | ({ kind: 'event'; at: number } & Omit<EventRow, 'createdAt'>)
  | {
      kind: 'memory';
      at: number;
      /** The memory_history row. */
      id: number;
      memoryId: number;
      action: HistoryAction;
      observation: string | null;
      sessionId: number | null;
      /** From the memory row; null for general memories and for deleted ones. */
      service: string | null;
      category: string | null;
      /** False once the memory is deleted (its history stays, so there is nothing to link). */
      exists: boolean;
    };

// Ties in time: sessions before the events and memory changes they produced.
const KIND_ORDER = { session: 0, event: 1, memory: 2 } as const;

const MAX_SERVICES = 500;

export function createStatsStore(db: Db) {
  const counts = db.prepare(`SELECT
    (SELECT COUNT(*) FROM sessions WHERE parent_session_id IS NULL AND trigger <> 'import')
      AS rootSessions,
    (SELECT COUNT(*) FROM sessions WHERE trigger = 'escalation') AS escalations,
    (SELECT COALESCE(SUM(cost_usd), 0) FROM sessions) AS totalCostUsd,
    (SELECT COUNT(*) FROM memories WHERE active = 1) AS activeMemories,
    (SELECT COUNT(*) FROM memories WHERE active = 0) AS inactiveMemories,
    (SELECT COUNT(*) FROM events WHERE level = 'critical' AND created_at >= ?) AS criticalEvents`);
  // Chains are linear (one escalation at most per session), so each chain has exactly one
  // session without a child, its last; counting those needs no walk from the roots.
  // Grouped by the outcome's signals: a handful of rows, whatever the number of chains.
  const chains = db.prepare(`SELECT ${OUTCOME_SIGNAL_COLUMNS}, COUNT(*) AS n
    FROM sessions s WHERE s.trigger <> 'import'
      AND NOT EXISTS (SELECT 1 FROM sessions c WHERE c.parent_session_id = s.id)
    GROUP BY 1, 2, 3, 4, 5, 6`);
  const signalsOf = db.prepare(`SELECT ${OUTCOME_SIGNAL_COLUMNS} FROM sessions s WHERE s.id = ?`);
  // The unary + keeps SQLite off idx_sessions_parent (all roots, then a sort): walking
  // idx_sessions_started backwards stops at the first root.
  const latestRoot = db.prepare(`SELECT id FROM sessions
    WHERE +parent_session_id IS NULL AND trigger <> 'import'
    ORDER BY started_at DESC, id DESC LIMIT 1`);
  const chainOf = db.prepare(`WITH RECURSIVE chain(id, depth) AS (
      SELECT ?, 0
      UNION ALL
      SELECT s.id, chain.depth + 1 FROM sessions s JOIN chain ON s.parent_session_id = chain.id
    )
    SELECT s.id, s.status, s.trigger, s.tier, s.started_at AS startedAt, s.ended_at AS endedAt,
      s.cost_usd AS costUsd, s.response, s.simulated
    FROM chain JOIN sessions s ON s.id = chain.id ORDER BY chain.depth, s.id`);
  const recentSessions = db.prepare(`SELECT 'session' AS kind, started_at AS at, id, status,
    trigger, tier, parent_session_id AS parentSessionId
    FROM sessions ORDER BY started_at DESC, id DESC LIMIT ?`);
  const recentEvents = db.prepare(`SELECT 'event' AS kind, created_at AS at, id,
    session_id AS sessionId, source, level, service, message
    FROM events ORDER BY created_at DESC, id DESC LIMIT ?`);
  // memory_history has no index on created_at; rows are written with the clock's "now", so id
  // order is time order and the rowid gives the newest without sorting the table. Decay steps
  // are left out: one weekly run would fill the feed with housekeeping.
  const recentHistory = db.prepare(`SELECT 'memory' AS kind, h.created_at AS at, h.id,
    h.memory_id AS memoryId, h.action, h.observation, h.session_id AS sessionId,
    m.service, m.category, m.id IS NOT NULL AS present
    FROM memory_history h LEFT JOIN memories m ON m.id = h.memory_id
    WHERE h.action <> 'decayed' ORDER BY h.id DESC LIMIT ?`);
  // A skip-scan over idx_events_service: one index seek per distinct service instead of reading
  // every event.
  const eventServices = db.prepare(`WITH RECURSIVE s(service) AS (
      SELECT MIN(service) FROM events WHERE service IS NOT NULL
      UNION ALL
      SELECT (SELECT MIN(service) FROM events WHERE service > s.service) FROM s
      WHERE s.service IS NOT NULL
    ) SELECT service FROM s WHERE service IS NOT NULL LIMIT ?`);

  type ChainRow = {
    id: number;
    status: SessionStatus;
    trigger: SessionTrigger;
    tier: number;
    startedAt: number;
    endedAt: number | null;
    costUsd: number | null;
    response: string | null;
    simulated: number;
  };

  return {
    /**
     * The overview numbers; critical events are counted from `since` (epoch ms) on. The
     * overview's reads are awaited: its page polls them (on PostgreSQL the event loop goes on).
     */
    async counts(since: number): Promise<OverviewCounts> {
      const [row, groups] = await Promise.all([getAwaited(counts, since), allAwaited(chains)]);
      const c = row as Omit<
        OverviewCounts,
        | 'finishedChains'
        | 'succeededChains'
        | 'successRate'
        | 'resolvedChains'
        | 'needsHumanChains'
        | 'outcomes'
      >;
      const outcomes = Object.fromEntries(RUN_OUTCOMES.map((k) => [k, 0])) as Record<
        RunOutcomeKind,
        number
      >;
      let succeeded = 0;
      for (const g of groups as (OutcomeSignals & { n: number })[]) {
        outcomes[runOutcome(g).kind] += Number(g.n);
        if (g.status === 'completed') succeeded += Number(g.n);
      }
      const finished = RUN_OUTCOMES.reduce((sum, k) => sum + outcomes[k], 0) - outcomes.running;
      return {
        ...c,
        finishedChains: finished,
        succeededChains: succeeded,
        resolvedChains: outcomes.resolved,
        needsHumanChains: finished - outcomes.resolved,
        outcomes,
        successRate: finished === 0 ? null : succeeded / finished,
      };
    },

    /** The most recently started run (root session, not an import) and its chain, or null. */
    async lastRun(): Promise<LastRun | null> {
      const root = (await getAwaited(latestRoot)) as { id: number } | undefined;
      if (!root) return null;
      const rows = (await allAwaited(chainOf, root.id)) as ChainRow[];
      const first = rows[0]!;
      const last = rows[rows.length - 1]!;
      const signals = (await getAwaited(signalsOf, last.id)) as OutcomeSignals;
      const costs = rows.map((r) => r.costUsd).filter((v): v is number => v !== null);
      return {
        rootId: first.id,
        rootStatus: first.status,
        trigger: first.trigger,
        lastId: last.id,
        status: last.status,
        outcome: runOutcome(signals),
        tierReached: Math.max(...rows.map((r) => r.tier)),
        sessions: rows.length,
        startedAt: first.startedAt,
        endedAt: last.endedAt,
        costUsd: costs.length === 0 ? null : costs.reduce((a, b) => a + b, 0),
        response: last.response,
        simulated: first.simulated === 1,
      };
    },

    /**
     * The latest sessions (by start), events and memory changes, merged newest first and cut
     * to `limit` items.
     */
    async activity(limit = 40): Promise<ActivityItem[]> {
      const [history, sessions, events] = await Promise.all([
        allAwaited(recentHistory, limit),
        allAwaited(recentSessions, limit),
        allAwaited(recentEvents, limit),
      ]);
      const items = [
        ...(sessions as ActivityItem[]),
        ...(events as ActivityItem[]),
        ...(
          history as (Omit<Extract<ActivityItem, { kind: 'memory' }>, 'exists'> & {
            present: number;
          })[]
        ).map(({ present, ...h }): ActivityItem => ({ ...h, exists: present === 1 })),
      ];
      items.sort((a, b) => b.at - a.at || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || b.id - a.id);
      return items.slice(0, limit);
    },

    /** Distinct non-null services named by events, sorted (at most 500). */
    async eventServices(): Promise<string[]> {
      const rows = (await allAwaited(eventServices, MAX_SERVICES)) as { service: string }[];
      return rows.map((r) => r.service);
    },
  };
}

export type StatsStore = ReturnType<typeof createStatsStore>;
