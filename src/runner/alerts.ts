/**
 * What the runner reports for a human's attention (the notifier's triggers), through a callback
 * the composition root injects: the runner knows nothing of how, or whether, anyone is told.
 * A callback must not throw; the runner guards each call anyway (`emitAlert`).
 */
import type { Logger } from '../log.js';

export type RunnerAlert =
  | {
      kind: 'critical_event';
      service: string | null;
      message: string;
      sessionId: number | null;
      tier: number | null;
    }
  | { kind: 'escalation'; fromTier: number; toTier: number; reason: string; sessionId: number }
  | {
      kind: 'session_ended';
      status: string;
      error: string | null;
      sessionId: number;
      tier: number | null;
    }
  | {
      kind: 'guard_refused';
      service: string;
      action: string;
      command: string;
      reason: string;
      sessionId: number | null;
    };

export type OnAlert = (alert: RunnerAlert) => void;

/** Calls `onAlert` if there is one; a failure of it is logged, never the runner's problem. */
export function emitAlert(onAlert: OnAlert | undefined, alert: RunnerAlert, log?: Logger): void {
  if (!onAlert) return;
  try {
    onAlert(alert);
  } catch (err) {
    log?.error('reporting an alert failed', { kind: alert.kind, error: err as Error });
  }
}
