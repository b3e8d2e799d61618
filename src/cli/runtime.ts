/**
 * The long-running parts, wired: stores, memory keeper, live feed, session and chain runners and
 * the scheduler. Used by `serve` and `run`; closes everything in the right order.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { type Conversations, createConversations } from '../conversations/index.js';
import {
  createDatabaseOutage,
  type DatabaseOutage,
  openStores,
  probeDatabase,
  type Stores,
  warmTextSearch,
} from '../db/index.js';
import { createEmbedder, type Embedder } from '../embed/index.js';
import { createBackend, createGateway, createMemoryJudge, type Gateway } from '../gateway/index.js';
import { createKnowledge, type Knowledge } from '../knowledge/index.js';
import type { Logger } from '../log.js';
import { type Notifier, setUpNotifier } from '../notify/index.js';
import { createChainRunner, type RunChain } from '../runner/chain.js';
import { type ChainSummarizer, createChainSummarizer } from '../runner/chain-summary.js';
import { createHookServer, type HookServer } from '../runner/hook-server.js';
import { createLeaseSweeper } from '../runner/lease.js';
import { SessionFeed } from '../runner/live-feed.js';
import { recoverInterruptedSessions, type RecoveredSession } from '../runner/recovery.js';
import { createScheduler, type Scheduler } from '../runner/scheduler.js';
import { createSessionRunner, type SessionRunnerDeps } from '../runner/session-runner.js';
import { startBackgroundWork } from './background.js';

export interface Runtime {
  config: Config;
  stores: Stores;
  knowledge: Knowledge;
  embedder: Embedder | null;
  gateway: Gateway;
  conversations: Conversations;
  hookServer: HookServer;
  /** Notifications of critical events, escalations, failed sessions and refused remediation. */
  notifier: Notifier;
  feed: SessionFeed;
  runChain: RunChain;
  /** Chain summaries, written in the background; `idle()` waits for the ones started. */
  summaries: Pick<ChainSummarizer, 'idle' | 'close'>;
  scheduler: Scheduler;
  log: Logger;
  /** The background loops' shared record of a lost database (one warning, one event each). */
  outage: DatabaseOutage;
  /**
   * Rows a killed `serve` or `run` left `running` become `interrupted`, and their leftover
   * processes are ended. Call it holding the runner lock, before anything can start a session.
   */
  recoverInterrupted(): Promise<RecoveredSession[]>;
  /**
   * Loads the embedding model and the vector index in the background, then embeds pending
   * memories every few seconds (serve); delivers notifications, sweeps leases and extracts
   * conversations. A lost database pauses each of them until it answers again.
   */
  startBackground(): Promise<void>;
  /** Stops the background work, the hook endpoint and the embedder, and closes the database. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  config: Config;
  clock: Clock;
  log: Logger;
  env: Record<string, string | undefined>;
  simulated?: boolean;
  childEnvOverrides?: Record<string, string>;
  /** Set on top of the gateway CLI backend's environment (the demo's simulated model). */
  gatewayEnvOverrides?: Record<string, string>;
  onSpawn?: SessionRunnerDeps['onSpawn'];
  onSessionEnd?: SessionRunnerDeps['onSessionEnd'];
}

export function createRuntime(o: RuntimeOptions): Runtime {
  const stores = openStores(o.config.fleet.databaseUrl ?? o.config.dbPath, {
    instance: o.config.fleet.instance,
  });
  for (const notice of stores.notices) o.log.warn(notice);
  const outage = createDatabaseOutage({
    probe: () => probeDatabase(stores.db),
    clock: o.clock,
    log: o.log,
    events: stores.events,
  });
  let notifier: Notifier;
  try {
    notifier = setUpNotifier({
      config: o.config.notifications,
      store: stores.notifications,
      clock: o.clock,
      log: o.log,
      env: o.env,
      outage,
    });
  } catch (err) {
    stores.close();
    throw err;
  }
  const onAlert = (alert: Parameters<Notifier['notify']>[0]) => void notifier.notify(alert);
  const embedder = createEmbedder(o.config.embeddings);
  const gateway = createGateway({
    config: o.config.gateway,
    backend: createBackend(o.config, o.env, o.gatewayEnvOverrides),
    jobs: stores.gatewayJobs,
    events: stores.events,
    clock: o.clock,
    log: o.log,
  });
  const { judge: judging, models } = o.config.gateway;
  const knowledge = createKnowledge({
    stores,
    embedder,
    clock: o.clock,
    fleet: o.config.fleet,
    ...(judging.on && gateway.available
      ? {
          judge: createMemoryJudge({
            gateway,
            clock: o.clock,
            model: models.gate,
            perMinute: judging.perMinute,
            timeoutMs: o.config.gateway.timeoutMs,
          }),
        }
      : {}),
  });
  const conversations = createConversations({
    stores,
    knowledge,
    gateway,
    clock: o.clock,
    log: o.log,
    outage,
    options: o.config.conversations,
  });
  const hookServer = createHookServer({ tools: knowledge.tools, log: o.log });
  const feed = new SessionFeed();
  const runSession = createSessionRunner({
    config: o.config,
    stores,
    knowledge,
    hookServer,
    clock: o.clock,
    feed,
    log: o.log,
    env: o.env,
    onAlert,
    outage,
    simulated: o.simulated ?? false,
    ...(o.childEnvOverrides ? { childEnvOverrides: o.childEnvOverrides } : {}),
    ...(o.onSpawn ? { onSpawn: o.onSpawn } : {}),
    ...(o.onSessionEnd ? { onSessionEnd: o.onSessionEnd } : {}),
  });
  const summaries = createChainSummarizer({
    stores,
    gateway,
    clock: o.clock,
    log: o.log,
    outage,
  });
  const runChain = createChainRunner({
    onAlert,
    summarizer: summaries,
    runSession,
    stores,
    config: o.config,
    clock: o.clock,
    log: o.log,
  });
  const scheduler = createScheduler({
    runChain,
    queueSize: o.config.runner.queueSize,
    schedule: o.config.runner.schedule,
    timeZone: o.config.timeZone,
    log: o.log,
    now: () => o.clock.now(),
    alertDedupMs: o.config.runner.alertDedupMs,
    // Counted on the run's first session, shown on the Sessions list and the session's page.
    onRepeats: (ticket) => {
      const first = ticket.sessionIds[0];
      if (first !== undefined) stores.alertRepeats.set(first, ticket.repeats, o.clock.now());
    },
  });
  // Running sessions of any instance whose heartbeat stopped are marked interrupted (serve).
  const leases = createLeaseSweeper({
    sessions: stores.sessions,
    clock: o.clock,
    leaseMs: o.config.fleet.leaseMs,
    log: o.log,
    onAlert,
    outage,
  });
  let background: { stop(): Promise<void> } | null = null;
  let leftovers: Promise<unknown> | undefined;
  let closing = false;
  return {
    config: o.config,
    stores,
    knowledge,
    embedder,
    gateway,
    conversations,
    hookServer,
    notifier,
    feed,
    runChain,
    summaries,
    scheduler,
    log: o.log,
    outage,
    recoverInterrupted: () => {
      // Chain summaries a killed predecessor left pending will never be written.
      stores.sessionRecords.abandonPending(o.clock.now());
      return recoverInterruptedSessions({
        sessions: stores.sessions,
        dataDir: o.config.dataDir,
        killGraceMs: o.config.runner.killGraceMs,
        now: () => o.clock.now(),
        log: o.log,
        onAlert,
      });
    },
    async startBackground() {
      // Jobs and summaries a killed predecessor left running will never finish. Settled once,
      // before anything of this process can start one of its own.
      leftovers ??= Promise.all([
        stores.gatewayJobs.abandonRunning(o.clock.now()),
        stores.summaries.abandonProcessing(o.clock.now()),
      ]);
      await leftovers;
      notifier.start();
      leases.start();
      if (background) return;
      // The first search loads it itself if this fails (or was cut short by a shutdown).
      void warmTextSearch(stores.db).catch((err: unknown) => {
        if (!closing) {
          o.log.warn('could not load the memories for full-text search ahead of use', {
            error: err as Error,
          });
        }
      });
      background = startBackgroundWork({
        knowledge,
        embedder,
        conversations,
        outage,
        log: o.log,
      });
    },
    async close() {
      closing = true;
      await leases.stop();
      await background?.stop();
      // Waits end and calls in flight are cancelled; then the background jobs settle.
      gateway.close();
      // A summary cut short by the shutdown is stored from the final response instead.
      await summaries.close();
      await conversations.close();
      await hookServer.close();
      await embedder?.close();
      await notifier.close();
      stores.close();
    },
  };
}
