/**
 * Configuration: one schema, parsed once from the environment, with errors that name the
 * variable and the bad value. Only this module interprets environment variables, and only
 * from the object its caller passes in. Every `WATCHKEEPER_X` may also be given as the Go
 * sidecar's `CLAUDEOPS_X`.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import cron from 'node-cron';
import { z } from 'zod';

import { AppError } from './errors.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Go sidecar defaults (claude-ops cmd/claudeops/main.go). */
const TIER_TOOLS = {
  1: {
    allowed: 'Bash,Read,Grep,Glob,Task,WebFetch,WebSearch',
    disallowed:
      'Bash(docker restart:*),Bash(docker stop:*),Bash(docker start:*),Bash(docker rm:*),' +
      'Bash(docker compose:*),Bash(ansible:*),Bash(ansible-playbook:*),Bash(helm:*),' +
      'Bash(gh pr create:*),Bash(gh pr merge:*),Bash(tea pr create:*),Bash(git push:*),' +
      'Bash(git commit:*),Bash(systemctl restart:*),Bash(systemctl stop:*),Bash(systemctl start:*),' +
      'Bash(apprise:*)',
  },
  2: {
    allowed: 'Bash,Read,Write,Edit,Grep,Glob,Task,WebFetch,WebSearch',
    disallowed:
      'Bash(ansible:*),Bash(ansible-playbook:*),Bash(helm:*),Bash(docker compose down:*),Bash(gh pr merge:*)',
  },
  3: {
    allowed: 'Bash,Read,Write,Edit,Grep,Glob,Task,WebFetch,WebSearch',
    disallowed:
      'Bash(rm -rf /:*),Bash(docker system prune:*),Bash(git push --force:*),Bash(gh pr merge:*)',
  },
} as const;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `90s`, `1h`, `500ms`, `2d`, or a plain number of seconds -> milliseconds. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(text);
  if (!m) return null;
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? 's').toLowerCase()]!);
}

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const duration = (min: number) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === null || ms < min) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a duration such as 90s, 30m or 2h (at least ${min / 1000}s)`,
      });
      return z.NEVER;
    }
    return ms;
  });
const bool = z.string().transform((text, ctx) => {
  const t = text.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  if (['0', 'false', 'no', 'off'].includes(t)) return false;
  ctx.addIssue({ code: 'custom', message: 'expected true or false' });
  return z.NEVER;
});
const list = z.string().transform((text) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
/** Addresses or CIDR ranges (`10.0.0.1`, `172.16.0.0/12`, `::1`), each checked. */
const addressList = list.superRefine((items, ctx) => {
  for (const item of items) {
    const [ip = '', bits, ...rest] = item.split('/');
    const family = isIP(ip);
    const max = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !bitsOk || rest.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `"${item}" is not an IP address or a CIDR range such as 10.0.0.0/8`,
      });
      return;
    }
  }
});
/** Host names as a browser sends them in `Host` (`dash.example.com`, optionally `:port`). */
const hostList = list.transform((items) => items.map((h) => h.toLowerCase()));
/** An http:// or https:// address. */
const httpUrl = z.string().refine(
  (text) => {
    try {
      return ['http:', 'https:'].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  },
  { message: 'expected an http:// or https:// URL such as http://127.0.0.1:11434' },
);
const schedule = z
  .string()
  .refine((s) => s.trim().toLowerCase() === 'off' || cron.validate(s.trim()), {
    message: 'expected a cron expression such as "0 * * * *", or off',
  });

const SCHEMA = z.object({
  DATA_DIR: z.string().min(1).default('./data'),
  MEMORY_BUDGET: int(0, 1_000_000).default(2000),
  TIER1_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  TIER2_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  TIER3_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  MAX_LINE_BYTES: int(1024, 1024 * 1024 * 1024).default(16 * 1024 * 1024),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  CLAUDE_BIN: z.string().min(1).optional(),
  WORKDIR: z.string().min(1).optional(),
  SCHEDULE: schedule.default('0 * * * *'),
  SESSION_TIMEOUT: duration(1000).default(30 * 60_000),
  KILL_GRACE: duration(100).default(10_000),
  STDOUT_GRACE: duration(100).default(5_000),
  QUEUE_SIZE: int(1, 1000).default(10),
  TIER1_MODEL: z.string().min(1).default('haiku'),
  TIER2_MODEL: z.string().min(1).default('sonnet'),
  TIER3_MODEL: z.string().min(1).default('opus'),
  TIER1_PROMPT: z.string().min(1).optional(),
  TIER2_PROMPT: z.string().min(1).optional(),
  TIER3_PROMPT: z.string().min(1).optional(),
  TIER1_ALLOWED_TOOLS: z.string().default(TIER_TOOLS[1].allowed),
  TIER2_ALLOWED_TOOLS: z.string().default(TIER_TOOLS[2].allowed),
  TIER3_ALLOWED_TOOLS: z.string().default(TIER_TOOLS[3].allowed),
  TIER1_DISALLOWED_TOOLS: z.string().default(TIER_TOOLS[1].disallowed),
  TIER2_DISALLOWED_TOOLS: z.string().default(TIER_TOOLS[2].disallowed),
  TIER3_DISALLOWED_TOOLS: z.string().default(TIER_TOOLS[3].disallowed),
  PERMISSION_MODE: z
    .enum(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'])
    .default('dontAsk'),
  MAX_TIER: int(1, 3).default(3),
  DRY_RUN: bool.default(false),
  MAX_TURNS: int(1, 10_000).optional(),
  MCP_CONFIG: z.string().min(1).optional(),
  CLAUDE_SETTINGS: z.string().min(1).optional(),
  CHILD_ENV: list.default([]),
  RESTART_LIMIT: int(0, 1000).default(2),
  RESTART_WINDOW: duration(60_000).default(4 * 3_600_000),
  REDEPLOY_LIMIT: int(0, 1000).default(1),
  REDEPLOY_WINDOW: duration(60_000).default(24 * 3_600_000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65535).default(8080),
  AUTH_TOKEN: z.string().min(16, 'must be at least 16 characters (use a random token)').optional(),
  AUTH_USER: z.string().min(1).optional(),
  AUTH_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
  ALLOWED_HOSTS: hostList.default([]),
  TRUSTED_PROXIES: addressList.default([]),
  WEBHOOK_MAX_BYTES: int(256, 10 * 1024 * 1024).default(64 * 1024),
  SECURE_COOKIES: bool.default(false),
  EMBEDDINGS: z.enum(['local', 'ollama', 'openai', 'off']).default('local'),
  EMBEDDINGS_URL: httpUrl.optional(),
  EMBEDDINGS_MODEL: z.string().trim().min(1).optional(),
  EMBEDDINGS_KEY: z.string().min(1).optional(),
  EMBEDDINGS_TIMEOUT: duration(100).default(10_000),
});

type Tier = 1 | 2 | 3;

export interface TierConfig {
  model: string;
  /** Path of the prompt file for scheduled runs of this tier. */
  promptFile: string;
  allowedTools: string;
  disallowedTools: string;
  /** Token budget of this tier's memory block (WATCHKEEPER_TIERn_MEMORY_BUDGET, else the global). */
  memoryBudget: number;
}

export interface CooldownLimits {
  restart: { limit: number; windowMs: number };
  redeployment: { limit: number; windowMs: number };
}

export interface Config {
  /** Absolute path of the folder holding watchkeeper.db and sessions/. */
  dataDir: string;
  dbPath: string;
  sessionsDir: string;
  /** Token budget of the memory block appended to every session's system prompt. */
  memoryBudget: number;
  /** Stream lines longer than this are skipped and counted. */
  maxLineBytes: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  runner: {
    claudeBin: string;
    /** Working directory of the CLI: kept apart so a developer's CLAUDE.md is never picked up. */
    workdir: string;
    /** Cron expression, or null when only triggers start runs. */
    schedule: string | null;
    sessionTimeoutMs: number;
    killGraceMs: number;
    stdoutGraceMs: number;
    queueSize: number;
    tiers: Record<Tier, TierConfig>;
    permissionMode: string;
    maxTier: Tier;
    dryRun: boolean;
    maxTurns: number | null;
    mcpConfig: string | null;
    settingsFile: string | null;
    /** Extra environment variable names the CLI may see (beyond ANTHROPIC_*, PATH, HOME…). */
    childEnv: string[];
  };
  cooldowns: CooldownLimits;
  web: WebConfig;
  embeddings: EmbeddingsConfig;
  /**
   * True when the environment holds a credential the Claude CLI can use (ANTHROPIC_API_KEY,
   * ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN, or Bedrock/Vertex switched on).
   */
  modelCredentialConfigured: boolean;
}

/** The shape `createEmbedder` (src/embed) takes; url and model null mean the backend's default. */
export interface EmbeddingsConfig {
  backend: 'local' | 'ollama' | 'openai' | 'off';
  url: string | null;
  model: string | null;
  /** Secret: never logged or shown. */
  key: string | null;
  timeoutMs: number;
}

export interface WebConfig {
  host: string;
  port: number;
  /** Bearer token for scripts and sign-in; null when not configured. */
  authToken: string | null;
  /** A user and password for sign-in; null when not configured. */
  authUser: { user: string; password: string } | null;
  webhookMaxBytes: number;
  /**
   * With a credential: the `Host` names the dashboard answers to (empty: any). Without one it
   * answers to loopback names only, whatever this says.
   */
  allowedHosts: string[];
  /** Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client. */
  trustedProxies: string[];
  /** Mark cookies Secure (when served over HTTPS, e.g. behind a proxy). */
  secureCookies: boolean;
}

const MODEL_CREDENTIALS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
] as const;

/** True when `env` gives the Claude CLI a credential (or a cloud provider that brings its own). */
export function hasModelCredential(env: Record<string, string | undefined>): boolean {
  return MODEL_CREDENTIALS.some((k) => Boolean(env[k]?.trim()));
}

/** True for addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const SECRET_KEYS = new Set(['AUTH_TOKEN', 'AUTH_PASSWORD', 'EMBEDDINGS_KEY']);
const PREFIX = 'WATCHKEEPER_';
const ALIAS_PREFIX = 'CLAUDEOPS_';

export const DEFAULT_PROMPTS_DIR = resolve(PACKAGE_ROOT, 'prompts');
const DEFAULT_PROMPT_FILES: Record<Tier, string> = {
  1: resolve(DEFAULT_PROMPTS_DIR, 'tier1-observe.md'),
  2: resolve(DEFAULT_PROMPTS_DIR, 'tier2-investigate.md'),
  3: resolve(DEFAULT_PROMPTS_DIR, 'tier3-remediate.md'),
};

/** Parses the environment; throws `config_invalid` naming the variable and value at fault. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const input: Record<string, string> = {};
  const sourceName: Record<string, string> = {};
  for (const key of Object.keys(SCHEMA.shape)) {
    const own = env[PREFIX + key];
    const value = own ?? env[ALIAS_PREFIX + key];
    if (value === undefined || value === '') continue;
    input[key] = value;
    sourceName[key] = own !== undefined ? PREFIX + key : ALIAS_PREFIX + key;
  }
  const parsed = SCHEMA.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const name = sourceName[key] ?? PREFIX + key;
    throw new AppError(
      'config_invalid',
      // Secrets are never echoed, not even in an error.
      `${name}=${SECRET_KEYS.has(key) ? `(hidden, ${input[key]?.length ?? 0} characters)` : JSON.stringify(input[key])}: ${issue.message}`,
      {
        data: { variable: name },
      },
    );
  }
  const c = parsed.data;
  if ((c.AUTH_USER === undefined) !== (c.AUTH_PASSWORD === undefined)) {
    const missing =
      c.AUTH_USER === undefined ? 'WATCHKEEPER_AUTH_USER' : 'WATCHKEEPER_AUTH_PASSWORD';
    throw new AppError(
      'config_invalid',
      `${missing} is missing: set both the user and the password, or neither`,
      {
        data: { variable: missing },
      },
    );
  }
  const dataDir = resolve(c.DATA_DIR);
  const tier = (n: Tier): TierConfig => ({
    model: c[`TIER${n}_MODEL`],
    promptFile: resolve(c[`TIER${n}_PROMPT`] ?? DEFAULT_PROMPT_FILES[n]),
    allowedTools: c[`TIER${n}_ALLOWED_TOOLS`],
    disallowedTools: c[`TIER${n}_DISALLOWED_TOOLS`],
    memoryBudget: c[`TIER${n}_MEMORY_BUDGET`] ?? c.MEMORY_BUDGET,
  });
  return {
    dataDir,
    dbPath: resolve(dataDir, 'watchkeeper.db'),
    sessionsDir: resolve(dataDir, 'sessions'),
    memoryBudget: c.MEMORY_BUDGET,
    maxLineBytes: c.MAX_LINE_BYTES,
    logLevel: c.LOG_LEVEL,
    runner: {
      claudeBin: resolve(c.CLAUDE_BIN ?? resolve(PACKAGE_ROOT, 'node_modules/.bin/claude')),
      workdir: resolve(c.WORKDIR ?? resolve(dataDir, 'workspace')),
      schedule: c.SCHEDULE.trim().toLowerCase() === 'off' ? null : c.SCHEDULE.trim(),
      sessionTimeoutMs: c.SESSION_TIMEOUT,
      killGraceMs: c.KILL_GRACE,
      stdoutGraceMs: c.STDOUT_GRACE,
      queueSize: c.QUEUE_SIZE,
      tiers: { 1: tier(1), 2: tier(2), 3: tier(3) },
      permissionMode: c.PERMISSION_MODE,
      maxTier: c.MAX_TIER as Tier,
      dryRun: c.DRY_RUN,
      maxTurns: c.MAX_TURNS ?? null,
      mcpConfig: c.MCP_CONFIG ? resolve(c.MCP_CONFIG) : null,
      settingsFile: c.CLAUDE_SETTINGS ? resolve(c.CLAUDE_SETTINGS) : null,
      childEnv: c.CHILD_ENV,
    },
    cooldowns: {
      restart: { limit: c.RESTART_LIMIT, windowMs: c.RESTART_WINDOW },
      redeployment: { limit: c.REDEPLOY_LIMIT, windowMs: c.REDEPLOY_WINDOW },
    },
    web: {
      host: c.HOST,
      port: c.PORT,
      authToken: c.AUTH_TOKEN ?? null,
      authUser:
        c.AUTH_USER && c.AUTH_PASSWORD ? { user: c.AUTH_USER, password: c.AUTH_PASSWORD } : null,
      webhookMaxBytes: c.WEBHOOK_MAX_BYTES,
      allowedHosts: c.ALLOWED_HOSTS,
      trustedProxies: c.TRUSTED_PROXIES,
      secureCookies: c.SECURE_COOKIES,
    },
    embeddings: {
      backend: c.EMBEDDINGS,
      url: c.EMBEDDINGS_URL ?? null,
      model: c.EMBEDDINGS_MODEL ?? null,
      key: c.EMBEDDINGS_KEY ?? null,
      timeoutMs: c.EMBEDDINGS_TIMEOUT,
    },
    modelCredentialConfigured: hasModelCredential(env),
  };
}
