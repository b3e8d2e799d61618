/**
 * The long-running parts, wired: stores, memory keeper, live feed, session and chain runners and
 * the scheduler. Used by `serve` and `run`; closes everything in the right order.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { openStores, type Stores } from '../db/index.js';
import type { Logger } from '../log.js';
import { createChainRunner, type RunChain } from '../runner/chain.js';
import { cooldownHorizon, cooldownState } from '../runner/cooldown-policy.js';
import { SessionFeed } from '../runner/live-feed.js';
import { createMemoryKeeper, type MemoryKeeper } from '../runner/memory-keeper.js';
import { createScheduler, type Scheduler } from '../runner/scheduler.js';
import { createSessionRunner, type SessionRunnerDeps } from '../runner/session-runner.js';
import { createApp } from '../web/app.js';
import type { RunnerControl } from '../web/deps.js';
import { loadSecret } from '../web/server.js';

export interface Runtime {
  config: Config;
  stores: Stores;
  keeper: MemoryKeeper;
  feed: SessionFeed;
  runChain: RunChain;
  scheduler: Scheduler;
  log: Logger;
}

export interface RuntimeOptions {
  config: Config;
  clock: Clock;
  log: Logger;
  env: Record<string, string | undefined>;
  simulated?: boolean;
  childEnvOverrides?: Record<string, string>;
  onSpawn?: SessionRunnerDeps['onSpawn'];
}

/** The runner behaviour the web layer is given (it may import runner types only). */
export function runnerControl(rt: Runtime): RunnerControl {
  return {
    trigger: (request) => rt.scheduler.trigger(request),
    ticket: (id) => rt.scheduler.ticket(id),
    stopCurrent: () => rt.scheduler.stopCurrent(),
    status: () => rt.scheduler.status(),
    cooldownState: (now) =>
      cooldownState(
        rt.stores.cooldowns.since(cooldownHorizon(rt.config.cooldowns, now)),
        rt.config.cooldowns,
        now,
      ),
    cooldownHorizon: (now) => cooldownHorizon(rt.config.cooldowns, now),
  };
}

export function createRuntime(o: RuntimeOptions): Runtime {
  const stores = openStores(o.config.dbPath);
  const keeper = createMemoryKeeper({
    memories: stores.memories,
    events: stores.events,
    clock: o.clock,
  });
  const feed = new SessionFeed();
  const runSession = createSessionRunner({
    config: o.config,
    stores,
    keeper,
    clock: o.clock,
    feed,
    log: o.log,
    env: o.env,
    simulated: o.simulated ?? false,
    ...(o.childEnvOverrides ? { childEnvOverrides: o.childEnvOverrides } : {}),
    ...(o.onSpawn ? { onSpawn: o.onSpawn } : {}),
  });
  const runChain = createChainRunner({
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
    log: o.log,
    now: () => o.clock.now(),
  });
  return { config: o.config, stores, keeper, feed, runChain, scheduler, log: o.log };
}

/** The dashboard over a runtime: what `serve` listens with, and what the browser tests drive. */
export function createDashboard(rt: Runtime, o: { clock: Clock; demo: boolean }) {
  return createApp({
    config: rt.config,
    stores: rt.stores,
    keeper: rt.keeper,
    feed: rt.feed,
    runner: runnerControl(rt),
    clock: o.clock,
    log: rt.log,
    demo: o.demo,
    secret: loadSecret(rt.config.dataDir),
  });
}

/** Names of credentials the CLI can use; none of them set means runs will fail to log in. */
export function hasModelCredentials(env: Record<string, string | undefined>): boolean {
  return [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'CLAUDE_CODE_USE_BEDROCK',
    'CLAUDE_CODE_USE_VERTEX',
  ].some((k) => Boolean(env[k]));
}
