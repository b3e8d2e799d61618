/**
 * What a tier's session is asked (the request), what it answers (the outcome) and what the
 * runner is built with.
 */
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/index.js';
import type { DatabaseOutage, SessionStatus, SessionTrigger, Stores } from '../../db/index.js';
import type { Knowledge } from '../../knowledge/index.js';
import type { Logger } from '../../log.js';
import type { OnAlert } from '../alerts.js';
import type { HookServer } from '../hook-server.js';
import type { EscalationRequest } from '../ingest.js';
import type { SessionFeed } from '../live-feed.js';
import type { Handoff } from '../session-context.js';

export type Tier = 1 | 2 | 3;

export interface SessionRequest {
  trigger: SessionTrigger;
  tier: Tier;
  /** The prompt text; when null the tier's prompt file is read. */
  prompt: string | null;
  parentSessionId: number | null;
  handoff: Handoff | null;
  alert: string | null;
  /** Told the session id as soon as its row exists (before the CLI runs). */
  onStarted?: (sessionId: number) => void;
}

export interface SessionOutcome {
  sessionId: number;
  status: SessionStatus;
  error: string | null;
  finalText: string | null;
  escalations: EscalationRequest[];
}

export interface SessionRunnerDeps {
  /** Told of critical events and of sessions that failed or timed out (notifications). */
  onAlert?: OnAlert;
  config: Config;
  stores: Stores;
  knowledge: Knowledge;
  clock: Clock;
  feed: SessionFeed;
  /** Answers the session's PostToolUse hook with relevant memories; none: no such hook. */
  hookServer?: HookServer;
  log: Logger;
  /** The environment the child's allow-list is taken from. */
  env: Record<string, string | undefined>;
  /** Extra variables for the child (demo mode points ANTHROPIC_BASE_URL at the simulator). */
  childEnvOverrides?: Record<string, string>;
  /** Sessions against the simulated model are marked as such. */
  simulated?: boolean;
  /** Observes the time from the run request to the CLI spawn (for the overhead benchmark). */
  onSpawn?: (sessionId: number, requestedAt: number, spawnedAt: number) => void;
  /**
   * Told once a session's row and log are final (serve indexes the log into the memory graph
   * in the background). Must return at once; what it throws is logged, never the session's.
   */
  onSessionEnd?: (sessionId: number) => void;
  /** The process's record of a lost database, shared by its background loops (heartbeats). */
  outage?: DatabaseOutage;
}

/** What triggered the session, as the query of its memory block. */
export function triggerText(req: SessionRequest): string | null {
  if (req.alert) return req.alert;
  if (req.handoff) {
    const events = req.handoff.chainEvents
      .slice(0, 20)
      .map((e) => `${e.service ?? ''} ${e.message.slice(0, 300)}`);
    return [req.handoff.reason, ...events].join('\n');
  }
  if (req.trigger === 'manual' || req.trigger === 'api' || req.trigger === 'chat')
    return req.prompt;
  return null;
}
