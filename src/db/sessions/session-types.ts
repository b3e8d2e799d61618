/** The sessions table's rows and the values a run writes into them (statuses, triggers, finish). */

export const SESSION_STATUSES = [
  'running',
  'completed',
  'failed',
  'timed_out',
  'stopped',
  'escalated',
  // watchkeeper stopped (killed, crashed) while the session ran; set at the next start-up
  'interrupted',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const SESSION_TRIGGERS = [
  'scheduled',
  'manual',
  'api',
  'alert',
  'escalation',
  'import',
  // a message to the OpenAI-compatible chat endpoint (/v1/chat/completions)
  'chat',
] as const;
export type SessionTrigger = (typeof SESSION_TRIGGERS)[number];

export interface SessionRow {
  id: number;
  status: SessionStatus;
  trigger: SessionTrigger;
  tier: number;
  model: string | null;
  prompt: string | null;
  parentSessionId: number | null;
  cliSessionId: string | null;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  resultSubtype: string | null;
  isError: boolean | null;
  costUsd: number | null;
  numTurns: number | null;
  durationMs: number | null;
  durationApiMs: number | null;
  usage: Record<string, unknown> | null;
  response: string | null;
  error: string | null;
  logPath: string | null;
  streamStats: Record<string, unknown> | null;
  /** True when the session ran against the simulated model (demo mode, tests). */
  simulated: boolean;
  /** The sidecar that ran it (WATCHKEEPER_INSTANCE); `local` for a lone sidecar. */
  instance: string;
  /** While running: the last time its runner said it was alive (epoch ms); see expireLeases. */
  heartbeatAt: number | null;
}

export interface SessionStart {
  trigger: SessionTrigger;
  tier: number;
  model?: string | null;
  prompt?: string | null;
  parentSessionId?: number | null;
  logPath?: string | null;
  startedAt: number;
  simulated?: boolean;
}

/** A session left `running`, with the process group its CLI was spawned in (null if never spawned). */
export interface RunningSession {
  id: number;
  pgid: number | null;
}

/** A running session whose instance stopped beating, as the lease sweep marked it interrupted. */
export interface ExpiredLease {
  sessionId: number;
  instance: string;
  /** The last heartbeat (its start when it never beat), epoch ms. */
  lastBeatAt: number;
  /** When the lease ran out: lastBeatAt + the lease. */
  expiredAt: number;
  error: string;
}

export interface SessionFinish {
  status: SessionStatus;
  endedAt: number;
  exitCode?: number | null;
  resultSubtype?: string | null;
  isError?: boolean | null;
  costUsd?: number | null;
  numTurns?: number | null;
  durationMs?: number | null;
  durationApiMs?: number | null;
  usage?: Record<string, unknown> | null;
  response?: string | null;
  error?: string | null;
  cliSessionId?: string | null;
  model?: string | null;
  streamStats?: object | null;
}
