import type { GatewayConfig } from '../../src/config/index.js';
import {
  createConversations,
  type ConversationOptions,
  type Conversations,
} from '../../src/conversations/index.js';
import { type Backend, createGateway, type Gateway } from '../../src/gateway/index.js';
import { createAnthropicBackend } from '../../src/gateway/anthropic-backend.js';
import { gatewayScript } from '../../src/sim/gateway-jobs.js';
import {
  type SimRequest,
  type SimScript,
  type SimulatedModel,
  startSimulatedModel,
} from '../../src/sim/messages-api.js';
import type { TestApp } from './db.js';

/** A finished job of `usd` at `at`, recorded in `stores` (as the instance they belong to). */
export async function recordJobCost(
  stores: Pick<TestApp['stores'], 'gatewayJobs'>,
  usd: number,
  at: number,
): Promise<void> {
  const id = await stores.gatewayJobs.start('summary', 'anthropic', 'sonnet', null, at);
  await stores.gatewayJobs.finish(id, {
    outcome: 'ok',
    model: 'sonnet',
    inputTokens: 100,
    outputTokens: 20,
    costUsd: usd,
    durationMs: 5,
    attempts: 1,
    error: null,
    at,
  });
}

/** A gateway config for tests: the anthropic backend, short timeouts, no retries unless asked. */
export function gatewayConfig(over: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    backend: 'anthropic',
    offReason: null,
    url: 'http://127.0.0.1:1',
    key: 'test-key',
    models: { gate: 'haiku', extract: 'sonnet', summary: 'sonnet' },
    timeoutMs: 10_000,
    concurrency: 2,
    retries: 0,
    dailyBudgetUsd: 0,
    fleetBudgetUsd: 0,
    judge: { on: true, perMinute: 10 },
    ...over,
  };
}

export const OFF: Partial<GatewayConfig> = {
  backend: 'off',
  offReason: 'no model is configured for the gateway (test)',
  url: null,
  key: null,
};

/**
 * A script whose answers can be held back: `hold(kind)` makes jobs of that kind wait until
 * `release(kind)`; every request is counted by job kind.
 */
export function controlledScript(base: SimScript = gatewayScript) {
  const held = new Map<string, { promise: Promise<void>; release: () => void }>();
  const counts = new Map<string, number>();
  const kindOf = (r: SimRequest) => /\[watchkeeper:([a-z_-]+)\]/.exec(r.system)?.[1] ?? 'other';
  const script: SimScript = async (r) => {
    const kind = kindOf(r);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    await held.get(kind)?.promise;
    return base(r);
  };
  return {
    script,
    count: (kind: string) => counts.get(kind) ?? 0,
    hold(kind: string) {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => {
        release = resolve;
      });
      held.set(kind, { promise, release });
    },
    release(kind: string) {
      held.get(kind)?.release();
      held.delete(kind);
    },
  };
}

export interface SimGateway {
  gateway: Gateway;
  sim: SimulatedModel | null;
  backend: Backend | null;
  close(): Promise<void>;
}

/** The real gateway with the anthropic backend against the simulated model (or off). */
export async function simGateway(
  app: Pick<TestApp, 'stores' | 'clock'>,
  o: { script?: SimScript; config?: Partial<GatewayConfig>; budgetPollMs?: number } = {},
): Promise<SimGateway> {
  const off = o.config?.backend === 'off';
  const sim = off ? null : await startSimulatedModel(o.script ?? gatewayScript);
  const config = gatewayConfig({ ...(sim ? { url: sim.url } : {}), ...o.config });
  const backend = sim ? createAnthropicBackend({ url: config.url!, key: config.key! }) : null;
  const gateway = createGateway({
    config,
    backend,
    jobs: app.stores.gatewayJobs,
    events: app.stores.events,
    clock: app.clock,
    retryBaseMs: 5,
    budgetPollMs: o.budgetPollMs ?? 5,
  });
  return {
    gateway,
    sim,
    backend,
    close: async () => {
      gateway.close();
      await sim?.close();
    },
  };
}

/** The conversation service over a test app and a gateway. */
export function conversationsOver(
  app: TestApp,
  gateway: Gateway,
  options: Partial<ConversationOptions> = {},
): Conversations {
  return createConversations({
    stores: app.stores,
    knowledge: app.knowledge,
    gateway,
    clock: app.clock,
    options,
  });
}

/** A gateway with no model configured and the conversation service over it (web harnesses). */
export function offConversations(app: Pick<TestApp, 'stores' | 'knowledge' | 'clock'>) {
  const gateway = createGateway({
    config: gatewayConfig(OFF),
    backend: null,
    jobs: app.stores.gatewayJobs,
    events: app.stores.events,
    clock: app.clock,
  });
  const conversations = createConversations({
    stores: app.stores,
    knowledge: app.knowledge,
    gateway,
    clock: app.clock,
  });
  return { gateway, conversations };
}

/**
 * A web harness builder: the gateway's anthropic backend against a running simulated model, and
 * the conversation service over it. `ref.conversations` gives the test the service (to wait for
 * its background jobs).
 */
export function simConversations(
  simUrl: string,
  options: Partial<ConversationOptions> = {},
  config: Partial<GatewayConfig> = {},
) {
  const ref: { conversations: Conversations | null; gateway: Gateway | null } = {
    conversations: null,
    gateway: null,
  };
  const build = (app: Pick<TestApp, 'stores' | 'knowledge' | 'clock'>) => {
    const cfg = gatewayConfig({ url: simUrl, ...config });
    const gateway = createGateway({
      config: cfg,
      backend: createAnthropicBackend({ url: simUrl, key: 'test-key' }),
      jobs: app.stores.gatewayJobs,
      events: app.stores.events,
      clock: app.clock,
      retryBaseMs: 5,
      budgetPollMs: 5,
    });
    const conversations = createConversations({
      stores: app.stores,
      knowledge: app.knowledge,
      gateway,
      clock: app.clock,
      options,
    });
    ref.conversations = conversations;
    ref.gateway = gateway;
    return { gateway, conversations };
  };
  return { build, ref };
}
