/**
 * The model gateway (src/gateway): which backend runs the model jobs, which model each job kind
 * uses, and its deadline, concurrency, retries and daily budget.
 */
import { z } from 'zod';

import { AppError } from '../errors.js';
import { hasModelCredential } from './model-credential.js';
import { bool, duration, httpUrl, int } from './parse.js';

/** A model name for the gateway: never opus (seed 000 goal 7: tiered models, never Opus). */
const gatewayModel = z
  .string()
  .trim()
  .min(1)
  .refine((m) => !/opus/i.test(m), {
    message: 'the model gateway never uses opus: use a haiku- or sonnet-class model',
  });
/** A dollar amount such as 1, 0.50 or 2.5. */
const dollars = z.string().transform((text, ctx) => {
  const t = text.trim();
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(t)) {
    ctx.addIssue({ code: 'custom', message: 'expected an amount in dollars such as 1 or 0.50' });
    return z.NEVER;
  }
  return Number(t);
});

export const gatewayShape = {
  GATEWAY: z.enum(['cli', 'anthropic', 'openai', 'off']).optional(),
  GATEWAY_URL: httpUrl.optional(),
  GATEWAY_KEY: z.string().min(1).optional(),
  GATEWAY_MODEL_GATE: gatewayModel.optional(),
  GATEWAY_MODEL_EXTRACT: gatewayModel.optional(),
  GATEWAY_MODEL_SUMMARY: gatewayModel.optional(),
  GATEWAY_TIMEOUT: duration(1000).default(120_000),
  GATEWAY_CONCURRENCY: int(1, 64).default(2),
  GATEWAY_RETRIES: int(0, 10).default(3),
  GATEWAY_DAILY_BUDGET: dollars.default(1),
  GATEWAY_FLEET_BUDGET: dollars.default(0),
  GATEWAY_JUDGE: bool.default(true),
  GATEWAY_JUDGE_PER_MINUTE: int(1, 600).default(10),
};

export type GatewayBackendName = 'cli' | 'anthropic' | 'openai' | 'off';

/** The model gateway (src/gateway): which backend, which model per job kind, its limits. */
export interface GatewayConfig {
  backend: GatewayBackendName;
  /** Why the backend is off (shown where jobs would run); null when it is on. */
  offReason: string | null;
  /** Base URL of the anthropic or openai backend (null for cli and off). */
  url: string | null;
  /** Secret: never logged or shown. */
  key: string | null;
  models: { gate: string; extract: string; summary: string };
  timeoutMs: number;
  concurrency: number;
  /** Further attempts after a 429, a 5xx or a network error. */
  retries: number;
  /** Dollars per UTC day this instance spends; once spent, its jobs wait for the next day. */
  dailyBudgetUsd: number;
  /** Dollars per UTC day every instance sharing the database spends together; 0: no cap. */
  fleetBudgetUsd: number;
  /**
   * The memory judge (gateway/memory-judge.ts): whether re-observations the rules cannot place
   * go to the gate model while the gateway has a backend, and how many in a minute at most.
   */
  judge: { on: boolean; perMinute: number };
}

const GATEWAY_DEFAULT_MODELS = {
  claude: { gate: 'haiku', extract: 'sonnet', summary: 'sonnet' },
  openai: { gate: 'gpt-4.1-mini', extract: 'gpt-4.1-mini', summary: 'gpt-4.1-mini' },
};

/**
 * The gateway's settings. Without WATCHKEEPER_GATEWAY it uses the Claude CLI when the CLI has a
 * credential, and is off otherwise; the anthropic backend takes ANTHROPIC_API_KEY and
 * ANTHROPIC_BASE_URL when no gateway key or URL of its own is set.
 */
export function gatewayConfig(
  c: z.infer<z.ZodObject<typeof gatewayShape>>,
  env: Record<string, string | undefined>,
): GatewayConfig {
  const explicit = c.GATEWAY;
  const backend: GatewayBackendName = explicit ?? (hasModelCredential(env) ? 'cli' : 'off');
  let url: string | null = null;
  let key: string | null = c.GATEWAY_KEY ?? null;
  if (backend === 'anthropic') {
    url = c.GATEWAY_URL ?? (env.ANTHROPIC_BASE_URL?.trim() || 'https://api.anthropic.com');
    key ??= env.ANTHROPIC_API_KEY?.trim() || null;
    if (!key) {
      throw new AppError(
        'config_invalid',
        'WATCHKEEPER_GATEWAY=anthropic needs WATCHKEEPER_GATEWAY_KEY (or ANTHROPIC_API_KEY)',
        { data: { variable: 'WATCHKEEPER_GATEWAY_KEY' } },
      );
    }
  } else if (backend === 'openai') {
    url = c.GATEWAY_URL ?? 'https://api.openai.com';
  }
  const defaults = GATEWAY_DEFAULT_MODELS[backend === 'openai' ? 'openai' : 'claude'];
  return {
    backend,
    offReason:
      backend !== 'off'
        ? null
        : explicit === 'off'
          ? 'the model gateway is off (WATCHKEEPER_GATEWAY=off)'
          : 'no model is configured for the gateway: set WATCHKEEPER_GATEWAY (cli, anthropic or openai), or give the Claude CLI a credential (ANTHROPIC_API_KEY)',
    url,
    key,
    models: {
      gate: c.GATEWAY_MODEL_GATE ?? defaults.gate,
      extract: c.GATEWAY_MODEL_EXTRACT ?? defaults.extract,
      summary: c.GATEWAY_MODEL_SUMMARY ?? defaults.summary,
    },
    timeoutMs: c.GATEWAY_TIMEOUT,
    concurrency: c.GATEWAY_CONCURRENCY,
    retries: c.GATEWAY_RETRIES,
    dailyBudgetUsd: c.GATEWAY_DAILY_BUDGET,
    fleetBudgetUsd: c.GATEWAY_FLEET_BUDGET,
    judge: { on: c.GATEWAY_JUDGE, perMinute: c.GATEWAY_JUDGE_PER_MINUTE },
  };
}
