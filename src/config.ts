/**
 * Configuration: one schema, parsed once from the environment, with errors that name the
 * variable and the bad value. Only this module interprets environment variables, and only
 * from the object its caller passes in. Every `WATCHKEEPER_X` may also be given as the Go
 * sidecar's `CLAUDEOPS_X`.
 */
import { isIP } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import cron from 'node-cron';
import { z } from 'zod';

import { AppError } from './errors.js';
import { SCOPE_NAME } from './text-rules.js';

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
/** A dollar amount such as 1, 0.50 or 2.5. */
const dollars = z.string().transform((text, ctx) => {
  const t = text.trim();
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(t)) {
    ctx.addIssue({ code: 'custom', message: 'expected an amount in dollars such as 1 or 0.50' });
    return z.NEVER;
  }
  return Number(t);
});
/** A model name for the gateway: never opus (seed 000 goal 7: tiered models, never Opus). */
const gatewayModel = z
  .string()
  .trim()
  .min(1)
  .refine((m) => !/opus/i.test(m), {
    message: 'the model gateway never uses opus: use a haiku- or sonnet-class model',
  });
/** A memory scope name: letters, digits and . _ : -, not `ops` (share a scope with ops instead). */
const scopeName = z
  .string()
  .trim()
  .regex(SCOPE_NAME, {
    message: 'expected a name of letters, digits, ".", "_", ":" and "-" (at most 100)',
  })
  .refine((s) => s !== 'ops', {
    message: '"ops" is the scheduled sessions\' own scope; share a scope with ops instead',
  });
/** A postgres:// (or postgresql://) address of the fleet's shared database. */
const databaseUrl = z.string().refine(
  (text) => {
    try {
      return ['postgres:', 'postgresql:'].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  },
  { message: 'expected a postgres:// URL such as postgres://wk@db.example.com/watchkeeper' },
);
/** An instance name: letters, digits and . _ -, not `fleet` (the shared memories' scope). */
const instanceName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
    message: 'expected a name of letters, digits, ".", "_" and "-" (at most 63), such as cluster-a',
  })
  .refine((s) => s !== 'fleet', { message: '"fleet" is the scope of shared memories' });
/** How long sessions, logs, events and memory history are kept: a duration of a day or more, or off. */
const retention = z.string().transform((text, ctx): number | 'off' => {
  if (text.trim().toLowerCase() === 'off') return 'off';
  const ms = parseDuration(text);
  if (ms === null || ms < 86_400_000) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected a duration of at least 1d, such as 90d, or off',
    });
    return z.NEVER;
  }
  return ms;
});
/** Apprise URLs (`ntfy://topic`, `slack://...`), comma-separated; secret, so never echoed. */
const appriseUrls = list.superRefine((items, ctx) => {
  items.forEach((item, i) => {
    if (!/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(item)) {
      ctx.addIssue({
        code: 'custom',
        message: `URL ${i + 1} of ${items.length} is not an Apprise URL such as ntfy://host/topic`,
      });
    }
  });
});
const schedule = z
  .string()
  .refine((s) => s.trim().toLowerCase() === 'off' || cron.validate(s.trim()), {
    message: 'expected a cron expression such as "0 * * * *", or off',
  });

// An IANA zone the runtime knows ("Europe/Berlin", "UTC"); Intl refuses anything else.
const timeZone = z
  .string()
  .trim()
  .refine(
    (s) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: s });
        return true;
      } catch {
        return false;
      }
    },
    { message: 'expected an IANA time zone such as "Europe/Berlin" or "UTC"' },
  );

const SCHEMA = z.object({
  DATA_DIR: z.string().min(1).default('./data'),
  MEMORY_BUDGET: int(0, 1_000_000).default(2000),
  TIER1_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  TIER2_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  TIER3_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  MAX_LINE_BYTES: int(1024, 1024 * 1024 * 1024).default(16 * 1024 * 1024),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  METRICS: z.enum(['on', 'public', 'off']).default('on'),
  HOMEPAGE_STATS: bool.default(false),
  CLAUDE_BIN: z.string().min(1).optional(),
  WORKDIR: z.string().min(1).optional(),
  SCHEDULE: schedule.default('0 * * * *'),
  TZ: timeZone.optional(),
  SESSION_TIMEOUT: duration(1000).default(30 * 60_000),
  KILL_GRACE: duration(100).default(10_000),
  STDOUT_GRACE: duration(100).default(5_000),
  QUEUE_SIZE: int(1, 1000).default(10),
  ALERT_DEDUP_WINDOW: duration(0).default(10 * 60_000),
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
  GUARD_ALLOW_INTERPRETERS: list
    .superRefine((items, ctx) => {
      const bad = items.filter((i) => i !== 'all' && !GUARD_INTERPRETERS.includes(i));
      if (bad.length > 0)
        ctx.addIssue({
          code: 'custom',
          message: `unknown interpreter ${bad.join(', ')}: use ${GUARD_INTERPRETERS.join(', ')} or all`,
        });
    })
    .default([]),
  GUARD_ALLOW_ALIASES: bool.default(false),
  GUARD_ALLOW_HOOKS: list
    .superRefine((items, ctx) => {
      const bad = items.filter((i) => i !== 'all' && !GUARD_HOOKS.includes(i));
      if (bad.length > 0)
        ctx.addIssue({
          code: 'custom',
          message: `unknown hook ${bad.join(', ')}: use ${GUARD_HOOKS.join(', ')} or all`,
        });
    })
    .optional(),
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
  RETENTION: retention.default('off'),
  APPRISE_URLS: appriseUrls.default([]),
  NOTIFY_URLS: appriseUrls.default([]),
  NOTIFY_ESCALATION_TIER: z.enum(['2', '3', 'off']).default('3'),
  NOTIFY_DEDUP_WINDOW: duration(0).default(30 * 60_000),
  NOTIFY_RATE_LIMIT: int(0, 100_000).default(20),
  NOTIFY_RETRIES: int(0, 50).default(6),
  NOTIFY_TIMEOUT: duration(1000).default(15_000),
  EMBEDDINGS: z.enum(['local', 'ollama', 'openai', 'off']).default('local'),
  EMBEDDINGS_URL: httpUrl.optional(),
  EMBEDDINGS_MODEL: z.string().trim().min(1).optional(),
  EMBEDDINGS_KEY: z.string().min(1).optional(),
  EMBEDDINGS_TIMEOUT: duration(100).default(10_000),
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
  CONVERSATION_SCOPE: scopeName.optional(),
  CONVERSATION_WINDOW: int(2, 1000).default(14),
  CONVERSATION_SUMMARIZE_AFTER: int(1, 100_000).default(5),
  CONVERSATION_STALE: duration(1000).default(5 * 60_000),
  EXTRACT_EVERY: int(1, 100_000).default(10),
  EXTRACT_INTERVAL: duration(1000).default(60_000),
  DATABASE_URL: databaseUrl.optional(),
  INSTANCE: instanceName.default('local'),
  FLEET_MEMORY_SERVICES: list.default([]),
  FLEET_MEMORY_CATEGORIES: list.default([]),
  FLEET_COOLDOWN_SERVICES: list.default([]),
  LEASE: duration(5000).default(60_000),
  GRAPH_ROOTS: list
    .refine((items) => items.every((p) => isAbsolute(p)), {
      message: 'expected absolute folder paths separated by commas, such as /srv/transcripts',
    })
    .default([]),
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

/**
 * Interpreters whose process-starting code the cooldown guard refuses unless the operator allows
 * them by name (WATCHKEEPER_GUARD_ALLOW_INTERPRETERS); `python3`, `gawk`, `nodejs` go by these.
 */
export const GUARD_INTERPRETERS: readonly string[] = [
  'perl',
  'python',
  'ruby',
  'node',
  'php',
  'awk',
  'sed',
  'bun',
  'deno',
  'lua',
  'tclsh',
  'Rscript',
  'pwsh',
  'osascript',
];

/**
 * Programs and variables that run a command the cooldown guard cannot follow, from an option
 * or a variable (`git -c alias.x='!cmd'`, `tar --to-command`, `BASH_ENV`), refused unless the
 * operator allows them by name (WATCHKEEPER_GUARD_ALLOW_HOOKS); `vi`, `ex`, `nvim` go by `vim`.
 */
export const GUARD_HOOKS: readonly string[] = [
  'git',
  'tar',
  'ssh',
  'vim',
  'sort',
  'less',
  'fc',
  'BASH_ENV',
  'ENV',
];

/** What the cooldown guard lets through that it would otherwise refuse as unreadable. */
export interface GuardAllowance {
  /** Interpreter names (GUARD_INTERPRETERS) whose process-starting code may run; `all`. */
  interpreters: string[];
  /** Scripts may define aliases and turn on alias expansion. */
  aliases: boolean;
  /** Hook names (GUARD_HOOKS) whose command-running options and variables may be used; `all`. */
  hooks?: string[];
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
  /** `auto`: readable lines when stderr is a terminal, JSON lines otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  /**
   * `/metrics`: `on` behind the API's authentication, `public` without it, `off` (404). The
   * Homepage stats answer `/api/v1/stats` without a credential when `homepageStats` is on.
   */
  observability: { metrics: 'on' | 'public' | 'off'; homepageStats: boolean };
  /** WATCHKEEPER_TZ, else the system's zone: the dashboard's times and the cron schedule. */
  timeZone: string;
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
    /** The same alert text within this many ms joins the earlier alert's run; 0: off. */
    alertDedupMs: number;
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
  guard: GuardAllowance;
  web: WebConfig;
  embeddings: EmbeddingsConfig;
  gateway: GatewayConfig;
  conversations: ConversationsConfig;
  /** Sessions, raw logs, events and memory history older than this are pruned; null: kept. */
  retentionMs: number | null;
  notifications: NotificationsConfig;
  fleet: FleetConfig;
  graph: GraphConfig;
  /**
   * What start-up should say about the settings: a Claude Ops setting read under a watchkeeper
   * meaning (CLAUDEOPS_INTERVAL as a schedule), or one given twice where one name wins.
   */
  notices: string[];
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
  /** Dollars per UTC day; once spent, jobs wait for the next day. */
  dailyBudgetUsd: number;
}

/** Conversation memory (src/conversations): seed 001's window and seed 000's extraction. */
export interface ConversationsConfig {
  /** One scope for every conversation; null: each conversation its own (`conversation:ID`). */
  scope: string | null;
  windowSize: number;
  summarizeAfterSeq: number;
  /** A summary still processing after this long is marked failed. */
  staleAfterMs: number;
  extractEveryMessages: number;
  extractIntervalMs: number;
}

/** Where notifications go; delivered by the notifications feature. */
export interface NotificationsConfig {
  /** Apprise URLs (WATCHKEEPER_APPRISE_URLS, the Go sidecar's CLAUDEOPS_APPRISE_URLS). Secret. */
  appriseUrls: string[];
  /** Targets delivered built in (WATCHKEEPER_NOTIFY_URLS), Apprise-style schemes. Secret. */
  notifyUrls: string[];
  /** Escalations to this tier or above notify; null: none do. */
  escalationTier: 2 | 3 | null;
  /** The same kind, service and message inside this window is one notification (0: no dedup). */
  dedupWindowMs: number;
  /** Notifications per target per hour; over it they are held back and counted (0: no limit). */
  rateLimitPerHour: number;
  /** Further attempts after a failed delivery, with doubling backoff. */
  retries: number;
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

const SECRET_KEYS = new Set([
  'AUTH_TOKEN',
  'AUTH_PASSWORD',
  'EMBEDDINGS_KEY',
  'GATEWAY_KEY',
  'APPRISE_URLS',
  'NOTIFY_URLS',
  'DATABASE_URL',
]);
const PREFIX = 'WATCHKEEPER_';
const ALIAS_PREFIX = 'CLAUDEOPS_';

export const DEFAULT_PROMPTS_DIR = resolve(PACKAGE_ROOT, 'prompts');
const DEFAULT_PROMPT_FILES: Record<Tier, string> = {
  1: resolve(DEFAULT_PROMPTS_DIR, 'tier1-observe.md'),
  2: resolve(DEFAULT_PROMPTS_DIR, 'tier2-investigate.md'),
  3: resolve(DEFAULT_PROMPTS_DIR, 'tier3-remediate.md'),
};

type SettingKey = keyof typeof SCHEMA.shape;

/**
 * The Go sidecar's settings whose watchkeeper name differs (its configuration table; every other
 * `CLAUDEOPS_X` is read as `WATCHKEEPER_X`). `translate` turns the Go value into the watchkeeper
 * value, or null when it asks for nothing.
 */
const CLAUDEOPS_RENAMED: Record<
  string,
  { key: SettingKey; translate?: (value: string, name: string) => string | null }
> = {
  INTERVAL: { key: 'SCHEDULE', translate: intervalSchedule },
  PROMPT: { key: 'TIER1_PROMPT' },
  STATE_DIR: { key: 'DATA_DIR' },
  // The Go agent looked for the infrastructure repos there; watchkeeper's agent works in WORKDIR.
  REPOS_DIR: { key: 'WORKDIR' },
  DASHBOARD_PORT: { key: 'PORT' },
  // In Claude Ops the global lists reach Tier 1 only: Tiers 2 and 3 have lists of their own.
  ALLOWED_TOOLS: { key: 'TIER1_ALLOWED_TOOLS' },
  DISALLOWED_TOOLS: { key: 'TIER1_DISALLOWED_TOOLS' },
  SUMMARY_MODEL: { key: 'GATEWAY_MODEL_SUMMARY' },
  // It guarded the webhook with `Authorization: Bearer KEY`; the same header works here.
  CHAT_API_KEY: { key: 'AUTH_TOKEN' },
  VERBOSE: { key: 'LOG_LEVEL', translate: (v, name) => (parseBool(v, name) ? 'debug' : null) },
};

/**
 * The Go sidecar's settings watchkeeper does not have, with what to do instead. A value that asks
 * for nothing (empty, or false for a switch) is accepted, so the Go compose file's defaults load.
 */
const CLAUDEOPS_REFUSED: Record<string, { replacement: string; idle?: (v: string) => boolean }> = {
  RESULTS_DIR: {
    replacement:
      'session logs are kept in WATCHKEEPER_DATA_DIR/sessions, beside the database: set WATCHKEEPER_DATA_DIR (or CLAUDEOPS_STATE_DIR) instead',
  },
  BROWSER_ALLOWED_ORIGINS: {
    replacement:
      'watchkeeper has no browser automation of its own: give the agent a browser through an MCP server in WATCHKEEPER_MCP_CONFIG',
  },
  WEBHOOK_MODEL: {
    replacement:
      'POST /api/v1/webhook hands the alert text to the session as it is, with no model in between: remove it',
  },
  WEBHOOK_SYSTEM_PROMPT: {
    replacement:
      'POST /api/v1/webhook hands the alert text to the session as it is, with no model in between: remove it',
  },
  SCHEMA_PATH: {
    replacement:
      "watchkeeper reads the agent's markers ([EVENT:...], [MEMORY:...], [ESCALATE:n]), not --json-schema output; the tier prompts (WATCHKEEPER_TIER{1,2,3}_PROMPT) say what to report: remove it",
  },
  PR_ENABLED: {
    replacement: 'it had no effect in Claude Ops either: remove it',
    idle: (v) => ['0', 'false', 'no', 'off'].includes(v.trim().toLowerCase()),
  },
};

function parseBool(value: string, name: string): boolean {
  const t = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  if (['0', 'false', 'no', 'off'].includes(t)) return false;
  throw new AppError('config_invalid', `${name}=${JSON.stringify(value)}: expected true or false`, {
    data: { variable: name },
  });
}

const SECOND = 1;
const MINUTE = 60;
const HOUR = 3600;
/**
 * Intervals (seconds) with a cron form that runs at even intervals, and that form: divisors of a
 * minute (6-field, with seconds), of an hour, of a day, a day and a week.
 */
const INTERVAL_SCHEDULES: [number, string][] = [
  ...[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((s): [number, string] => [
    s * SECOND,
    s === 1 ? '* * * * * *' : `*/${s} * * * * *`,
  ]),
  ...[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((m): [number, string] => [
    m * MINUTE,
    m === 1 ? '* * * * *' : `*/${m} * * * *`,
  ]),
  ...[1, 2, 3, 4, 6, 8, 12].map((h): [number, string] => [
    h * HOUR,
    h === 1 ? '0 * * * *' : `0 */${h} * * *`,
  ]),
  [24 * HOUR, '0 0 * * *'],
  [7 * 24 * HOUR, '0 0 * * 0'],
];

function intervalText(seconds: number): string {
  if (seconds % (24 * HOUR) === 0) return `${seconds / (24 * HOUR)}d`;
  if (seconds % HOUR === 0) return `${seconds / HOUR}h`;
  if (seconds % MINUTE === 0) return `${seconds / MINUTE}m`;
  if (seconds > MINUTE) return `${Math.floor(seconds / MINUTE)}m ${seconds % MINUTE}s`;
  return `${seconds}s`;
}

/**
 * CLAUDEOPS_INTERVAL (seconds between runs) as a cron schedule. An interval cron cannot run at even
 * steps (90 minutes, 7 minutes, 45 seconds) stops start-up with the two nearest that it can: a
 * schedule that silently ran at uneven times would be a different setting.
 */
export function intervalSchedule(value: string, name = 'CLAUDEOPS_INTERVAL'): string {
  const fail = (message: string): never => {
    throw new AppError('config_invalid', `${name}=${JSON.stringify(value)}: ${message}`, {
      data: { variable: name },
    });
  };
  if (!/^\s*\d+\s*$/.test(value) || Number(value) <= 0) {
    return fail('expected a whole number of seconds, such as 900');
  }
  const seconds = Number(value);
  const exact = INTERVAL_SCHEDULES.find(([s]) => s === seconds);
  if (exact) return exact[1];
  const below = [...INTERVAL_SCHEDULES].reverse().find(([s]) => s < seconds);
  const above = INTERVAL_SCHEDULES.find(([s]) => s > seconds);
  const options = [below, above]
    .filter((o): o is [number, string] => o !== undefined)
    .map(([s, expr]) => `"${expr}" (every ${intervalText(s)})`)
    .join(' or ');
  return fail(
    `every ${intervalText(seconds)} has no cron schedule that runs at even intervals; set WATCHKEEPER_SCHEDULE instead, e.g. ${options}`,
  );
}

/** Names a typo is most likely meant to be (edit distance at most 3), best first. */
function closestNames(name: string, candidates: string[]): string[] {
  const distance = (a: string, b: string): number => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      for (let j = 1; j <= b.length; j++) {
        row[j] = Math.min(
          prev[j]! + 1,
          row[j - 1]! + 1,
          prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
      }
      prev = row;
    }
    return prev[b.length]!;
  };
  return candidates
    .map((c) => ({ c, d: distance(name, c) }))
    .filter((x) => x.d <= 3)
    .sort((x, y) => x.d - y.d)
    .slice(0, 2)
    .map((x) => x.c);
}

/** Every `CLAUDEOPS_*` variable is one watchkeeper reads, or start-up stops naming it. */
function checkClaudeOpsNames(env: Record<string, string | undefined>): void {
  const known = [
    ...Object.keys(SCHEMA.shape),
    ...Object.keys(CLAUDEOPS_RENAMED),
    ...Object.keys(CLAUDEOPS_REFUSED),
  ];
  const problems: { name: string; message: string }[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ALIAS_PREFIX) || value === undefined) continue;
    const key = name.slice(ALIAS_PREFIX.length);
    const refused = CLAUDEOPS_REFUSED[key];
    if (refused) {
      if (value.trim() === '' || refused.idle?.(value)) continue;
      problems.push({
        name,
        message: `${name} is a Claude Ops setting watchkeeper does not have: ${refused.replacement}`,
      });
    } else if (!known.includes(key)) {
      const near = closestNames(key, known).map((k) => ALIAS_PREFIX + k);
      problems.push({
        name,
        message:
          `${name} is not a setting watchkeeper or Claude Ops knows` +
          (near.length > 0 ? `: did you mean ${near.join(' or ')}?` : '') +
          ' (README.md, Configuration, lists them)',
      });
    }
  }
  if (problems.length > 0) {
    throw new AppError('config_invalid', problems.map((p) => p.message).join('; '), {
      data: { variable: problems[0]!.name },
    });
  }
}

/**
 * The raw value of each setting, from the first of its names that is set: `WATCHKEEPER_X`, then
 * `CLAUDEOPS_X`, then the Go sidecar's other name for it. A later name also set is reported.
 */
function readSettings(env: Record<string, string | undefined>) {
  const input: Record<string, string> = {};
  const sourceName: Record<string, string> = {};
  const notices: string[] = [];
  for (const key of Object.keys(SCHEMA.shape)) {
    const names = [PREFIX + key, ALIAS_PREFIX + key];
    for (const [goKey, r] of Object.entries(CLAUDEOPS_RENAMED)) {
      if (r.key === key) names.push(ALIAS_PREFIX + goKey);
    }
    for (const name of names) {
      const raw = env[name];
      if (raw === undefined || raw === '') continue;
      if (input[key] !== undefined) {
        notices.push(`${name} is not used: ${sourceName[key]} is set too and wins`);
        continue;
      }
      const renamed = CLAUDEOPS_RENAMED[name.slice(ALIAS_PREFIX.length)];
      const value =
        renamed?.key === key && name.startsWith(ALIAS_PREFIX) && renamed.translate
          ? renamed.translate(raw, name)
          : raw;
      if (value === null) continue;
      input[key] = value;
      sourceName[key] = name;
      if (name === `${ALIAS_PREFIX}INTERVAL`) {
        notices.push(
          `${name}=${raw} runs on the schedule "${value}" (WATCHKEEPER_SCHEDULE): at fixed times, not counted from the end of the previous run, and not once at start-up`,
        );
      } else if (name === `${ALIAS_PREFIX}CHAT_API_KEY`) {
        notices.push(
          `${name} is the bearer token (WATCHKEEPER_AUTH_TOKEN): it authenticates the webhook as before, and the dashboard and API too`,
        );
      }
    }
  }
  return { input, sourceName, notices };
}

/**
 * The folders that hold transcripts: the only ones the Stop hook and the graph's index API read
 * from (`watchkeeper graph index PATH` reads what the operator names).
 */
export interface GraphConfig {
  /** Claude Code's: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`; null without HOME. */
  claudeProjectsDir: string | null;
  /** WATCHKEEPER_GRAPH_ROOTS: more folders of transcripts (saved logs, another user's projects). */
  roots: string[];
}

/** Sidecars sharing one PostgreSQL database; a lone SQLite sidecar is the instance `local`. */
export interface FleetConfig {
  /** WATCHKEEPER_DATABASE_URL: the shared PostgreSQL database; null: the SQLite file (dbPath). */
  databaseUrl: string | null;
  /** WATCHKEEPER_INSTANCE: this sidecar's name on its sessions, events, cooldowns and memories. */
  instance: string;
  /** New memories about these services are shared with the whole fleet. */
  memoryServices: string[];
  /** New memories in these categories are shared with the whole fleet. */
  memoryCategories: string[];
  /** Services whose cooldown limits count every instance's actions (a database two clusters use). */
  cooldownServices: string[];
  /** A running session whose heartbeat is older than this is marked interrupted. */
  leaseMs: number;
}

/** Parses the environment; throws `config_invalid` naming the variable and value at fault. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  checkClaudeOpsNames(env);
  const { input, sourceName, notices } = readSettings(env);
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
  const gateway = gatewayConfig(c, env);
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
    logFormat: c.LOG_FORMAT,
    observability: { metrics: c.METRICS, homepageStats: c.HOMEPAGE_STATS },
    timeZone: c.TZ ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    runner: {
      claudeBin: resolve(c.CLAUDE_BIN ?? resolve(PACKAGE_ROOT, 'node_modules/.bin/claude')),
      workdir: resolve(c.WORKDIR ?? resolve(dataDir, 'workspace')),
      schedule: c.SCHEDULE.trim().toLowerCase() === 'off' ? null : c.SCHEDULE.trim(),
      sessionTimeoutMs: c.SESSION_TIMEOUT,
      killGraceMs: c.KILL_GRACE,
      stdoutGraceMs: c.STDOUT_GRACE,
      queueSize: c.QUEUE_SIZE,
      alertDedupMs: c.ALERT_DEDUP_WINDOW,
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
    guard: {
      interpreters: c.GUARD_ALLOW_INTERPRETERS,
      aliases: c.GUARD_ALLOW_ALIASES,
      hooks: c.GUARD_ALLOW_HOOKS,
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
    gateway,
    conversations: {
      scope: c.CONVERSATION_SCOPE ?? null,
      windowSize: c.CONVERSATION_WINDOW,
      summarizeAfterSeq: c.CONVERSATION_SUMMARIZE_AFTER,
      staleAfterMs: c.CONVERSATION_STALE,
      extractEveryMessages: c.EXTRACT_EVERY,
      extractIntervalMs: c.EXTRACT_INTERVAL,
    },
    retentionMs: c.RETENTION === 'off' ? null : c.RETENTION,
    notifications: {
      appriseUrls: c.APPRISE_URLS,
      notifyUrls: c.NOTIFY_URLS,
      escalationTier:
        c.NOTIFY_ESCALATION_TIER === 'off' ? null : (Number(c.NOTIFY_ESCALATION_TIER) as 2 | 3),
      dedupWindowMs: c.NOTIFY_DEDUP_WINDOW,
      rateLimitPerHour: c.NOTIFY_RATE_LIMIT,
      retries: c.NOTIFY_RETRIES,
      timeoutMs: c.NOTIFY_TIMEOUT,
    },
    fleet: {
      databaseUrl: c.DATABASE_URL ?? null,
      instance: c.INSTANCE,
      memoryServices: c.FLEET_MEMORY_SERVICES,
      memoryCategories: c.FLEET_MEMORY_CATEGORIES,
      cooldownServices: c.FLEET_COOLDOWN_SERVICES,
      leaseMs: c.LEASE,
    },
    graph: {
      claudeProjectsDir: env.CLAUDE_CONFIG_DIR
        ? join(resolve(env.CLAUDE_CONFIG_DIR), 'projects')
        : env.HOME
          ? join(env.HOME, '.claude', 'projects')
          : null,
      roots: c.GRAPH_ROOTS.map((p) => resolve(p)),
    },
    notices,
    modelCredentialConfigured: hasModelCredential(env),
  };
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
function gatewayConfig(
  c: z.infer<typeof SCHEMA>,
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
  };
}
