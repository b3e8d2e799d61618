/** What the web layer is given by the composition root. Runner behaviour arrives injected. */
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Conversations } from '../conversations/index.js';
import type { DatabaseOutage, Stores } from '../db/index.js';
import type { Gateway } from '../gateway/index.js';
import type { Knowledge } from '../knowledge/index.js';
import type { Logger } from '../log.js';
import type { ImportJson, ImportKind } from '../portability/index.js';
import type { ChainRequest } from '../runner/chain.js';
import type { ServiceCooldown } from '../runner/cooldown-policy.js';
import type { SessionFeed } from '../runner/live-feed.js';
import type { CancelOutcome, RunTicket, Scheduler } from '../runner/scheduler.js';

export interface RunnerControl {
  /** Queues a chain; throws AppError `busy` when the queue is full. */
  trigger(request: ChainRequest): RunTicket;
  ticket(id: string): RunTicket | null;
  /** The ticket once its run has ended (done, failed, cancelled); null for an unknown request. */
  settled(id: string): Promise<RunTicket | null>;
  /** Ends the running session; false when none runs. */
  stopCurrent(): boolean;
  status(): ReturnType<Scheduler['status']>;
  /** The running run and the queued ones, in the order they start. */
  queue(): { running: RunTicket | null; queued: RunTicket[] };
  /** Takes a queued run out of the queue, recording who did. */
  cancel(id: string, actor: string): CancelOutcome;
  /** Per service and action, the counts inside the cooldown windows at `now`. */
  /** Awaited: the Cooldowns page polls it (on PostgreSQL the event loop goes on). */
  cooldownState(now: number): Promise<ServiceCooldown[]>;
  /** The oldest time any cooldown window reaches back to at `now`: older actions count for none. */
  cooldownHorizon(now: number): number;
}

/** The notifier, as the Notifications page sees it: targets only ever redacted. */
export interface NotificationsControl {
  targets(): { key: string; label: string; kind: string; via: string; setting: string }[];
  /** Queues a test notification to every target; its id. */
  sendTest(by: string): number;
  settings: {
    escalationTier: number | null;
    dedupWindowMs: number;
    rateLimitPerHour: number;
    retries: number;
  };
}

export interface WebDeps {
  config: Config;
  stores: Stores;
  knowledge: Knowledge;
  /** Conversation memory (summaries, extraction) and the model gateway its jobs go through. */
  conversations: Conversations;
  gateway: Gateway;
  feed: SessionFeed;
  runner: RunnerControl;
  /** Notifications; none: the page shows the log without targets or a test button. */
  notifications?: NotificationsControl;
  clock: Clock;
  log: Logger;
  /** Demo mode: every page says the model is simulated. */
  demo: boolean;
  /** Key material for session cookies (persisted in the data folder). */
  secret: Buffer;
  /**
   * serve's answer to a challenge under the nonce of the serve-endpoint.json it wrote (none: no
   * such file, and /api/v1/graph/endpoint-proof is a 404).
   */
  endpointProof?: (challenge: string) => string;
  /**
   * Whether the database answers, without waiting on it (the layout's banner); by default what
   * the store's change feed last heard (`databaseReachable` in db).
   */
  databaseReachable?: () => boolean;
  /** The process's record of a lost database (serve): background indexing pauses with it. */
  outage?: DatabaseOutage;
  /**
   * How an uploaded file is imported when not in this process (serve on PostgreSQL: a child
   * process, `watchkeeper import FILE --json`); by default here.
   */
  importFile?: (file: string, kind: ImportKind, dryRun: boolean) => Promise<ImportJson>;
}
