/**
 * The dashboard over a runtime: what `serve` listens with, and what the browser tests drive.
 * Apart from the runtime so that commands without a dashboard (`run`) never load the web layer.
 */
import type { Clock } from '../clock.js';
import { currentCooldownsAwaited } from '../runner/cooldown-now.js';
import { cooldownHorizon } from '../runner/cooldown-policy.js';
import { createApp } from '../web/app.js';
import type { RunnerControl, WebDeps } from '../web/deps.js';
import { loadSecret } from '../web/server.js';
import type { Runtime } from './runtime.js';

/** The runner behaviour the web layer is given (it may import runner types only). */
function runnerControl(rt: Runtime): RunnerControl {
  return {
    trigger: (request) => rt.scheduler.trigger(request),
    ticket: (id) => rt.scheduler.ticket(id),
    settled: (id) => rt.scheduler.settled(id),
    stopCurrent: () => rt.scheduler.stopCurrent(),
    status: () => rt.scheduler.status(),
    queue: () => rt.scheduler.queue(),
    cancel: (id, actor) => rt.scheduler.cancel(id, actor),
    cooldownState: (now) =>
      currentCooldownsAwaited(
        rt.stores,
        rt.config.cooldowns,
        now,
        rt.config.fleet.cooldownServices,
      ),
    cooldownHorizon: (now) => cooldownHorizon(rt.config.cooldowns, now),
  };
}

/** The dashboard over a runtime: what `serve` listens with, and what the browser tests drive. */
export function createDashboard(
  rt: Runtime,
  o: {
    clock: Clock;
    demo: boolean;
    endpointProof?: (challenge: string) => string;
    importFile?: WebDeps['importFile'];
  },
) {
  return createApp({
    config: rt.config,
    stores: rt.stores,
    knowledge: rt.knowledge,
    conversations: rt.conversations,
    gateway: rt.gateway,
    feed: rt.feed,
    runner: runnerControl(rt),
    notifications: {
      targets: () => rt.notifier.targets(),
      sendTest: (by) => rt.notifier.sendTest(by),
      settings: rt.config.notifications,
    },
    clock: o.clock,
    log: rt.log,
    outage: rt.outage,
    demo: o.demo,
    secret: loadSecret(rt.config.dataDir),
    ...(o.endpointProof ? { endpointProof: o.endpointProof } : {}),
    ...(o.importFile ? { importFile: o.importFile } : {}),
  });
}
