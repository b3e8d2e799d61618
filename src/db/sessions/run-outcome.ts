/**
 * What a run (a chain of sessions) came to, read from what is already stored: its last session's
 * status and error, and the events of that session. An exit code alone hides failure (a refused
 * restart ends in a clean exit), so the dashboard and the overview counts use this, one rule.
 */
import type { SessionStatus } from './session-types.js';

export const RUN_OUTCOMES = [
  'running',
  'resolved',
  'needs_human',
  'failed',
  'interrupted',
  'shut_down',
  'stopped',
] as const;
export type RunOutcomeKind = (typeof RUN_OUTCOMES)[number];

/** How each outcome reads on the dashboard. */
export const OUTCOME_LABELS: Record<RunOutcomeKind, string> = {
  running: 'running',
  resolved: 'resolved',
  needs_human: 'needs a human',
  failed: 'failed',
  interrupted: 'interrupted',
  shut_down: 'shut down',
  stopped: 'stopped by the operator',
};

export interface RunOutcome {
  kind: RunOutcomeKind;
  /** Why it needs a human, or why it failed; empty when there is nothing more to say. */
  reasons: string[];
}

/** What the last session of a chain left behind, as the SQL below reads it (0 or 1 each). */
export interface OutcomeSignals {
  status: SessionStatus;
  /** Stopped by watchkeeper's own shutdown, not by the operator. */
  shutDown: number;
  critical: number;
  refused: number;
  tierLimit: number;
  dryRun: number;
}

/** The error a session stopped by watchkeeper's own shutdown is recorded with. */
export const SESSION_SHUTDOWN_ERROR = 'watchkeeper shut down while this session was running';

/**
 * The signals of the session aliased `s`, as columns. The markers are the system events the
 * runner and the cooldown guard write (chain.ts, pre-tool-use/refusals.ts).
 */
export const OUTCOME_SIGNAL_COLUMNS = `s.status,
  CASE WHEN s.error LIKE '${SESSION_SHUTDOWN_ERROR}%' THEN 1 ELSE 0 END AS shutDown,
  CASE WHEN EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id AND e.level = 'critical')
    THEN 1 ELSE 0 END AS critical,
  CASE WHEN EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id AND e.source = 'system'
    AND e.message LIKE 'Blocked %' AND e.message NOT LIKE 'Blocked % (dry run):%')
    THEN 1 ELSE 0 END AS refused,
  CASE WHEN EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id AND e.source = 'system'
    AND e.message LIKE 'Escalation to tier % ignored: the highest tier allowed%')
    THEN 1 ELSE 0 END AS tierLimit,
  CASE WHEN EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id AND e.source = 'system'
    AND (e.message LIKE 'Blocked % (dry run):%' OR e.message LIKE 'Escalation to tier % suppressed (dry run)%'))
    THEN 1 ELSE 0 END AS dryRun`;

/** The outcome of a chain from its last session's signals. */
export function runOutcome(s: OutcomeSignals): RunOutcome {
  switch (s.status) {
    case 'running':
      return { kind: 'running', reasons: [] };
    // An escalated session without its next tier: watchkeeper stopped between the two.
    case 'escalated':
    case 'interrupted':
      return { kind: 'interrupted', reasons: [] };
    case 'stopped':
      return s.shutDown ? { kind: 'shut_down', reasons: [] } : { kind: 'stopped', reasons: [] };
    case 'timed_out':
      return { kind: 'failed', reasons: ['timed out'] };
    case 'failed':
      return { kind: 'failed', reasons: [] };
    case 'completed': {
      const reasons = [
        s.refused ? 'restart refused' : null,
        s.critical ? 'critical event left' : null,
        s.tierLimit ? 'tier limit' : null,
        s.dryRun ? 'dry run' : null,
      ].filter((r): r is string => r !== null);
      return { kind: reasons.length > 0 ? 'needs_human' : 'resolved', reasons };
    }
  }
}
