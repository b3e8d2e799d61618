/**
 * How sessions run: the Claude CLI and its working folder, the schedule and its time zone, the
 * deadlines, the queue, the tiers and what the CLI may do and see.
 */
import { resolve } from 'node:path';

import cron from 'node-cron';
import { z } from 'zod';

import { PACKAGE_ROOT } from './package-root.js';
import { bool, duration, int, list } from './parse.js';
import { type Tier, type TierConfig, tierConfigs, tierShape } from './tiers.js';

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

export const runnerShape = {
  CLAUDE_BIN: z.string().min(1).optional(),
  WORKDIR: z.string().min(1).optional(),
  SCHEDULE: schedule.default('0 * * * *'),
  RUN_AT_START: bool.optional(),
  TZ: timeZone.optional(),
  SESSION_TIMEOUT: duration(1000).default(30 * 60_000),
  KILL_GRACE: duration(100).default(10_000),
  STDOUT_GRACE: duration(100).default(5_000),
  QUEUE_SIZE: int(1, 1000).default(10),
  ALERT_DEDUP_WINDOW: duration(0).default(10 * 60_000),
  ...tierShape,
  PERMISSION_MODE: z
    .enum(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'])
    .default('dontAsk'),
  MAX_TIER: int(1, 3).default(3),
  DRY_RUN: bool.default(false),
  MAX_TURNS: int(1, 10_000).optional(),
  MCP_CONFIG: z.string().min(1).optional(),
  CLAUDE_SETTINGS: z.string().min(1).optional(),
  CHILD_ENV: list.default([]),
};

export interface RunnerConfig {
  claudeBin: string;
  /** Working directory of the CLI: kept apart so a developer's CLAUDE.md is never picked up. */
  workdir: string;
  /** Cron expression, or null when only triggers start runs. */
  schedule: string | null;
  /** One chain as serve starts (WATCHKEEPER_RUN_AT_START; on when CLAUDEOPS_INTERVAL set the schedule). */
  runAtStart: boolean;
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
}

type RunnerSettings = z.infer<z.ZodObject<typeof runnerShape>> & Parameters<typeof tierConfigs>[0];

export function runnerConfig(
  c: RunnerSettings,
  dataDir: string,
  scheduleFromInterval = false,
): RunnerConfig {
  return {
    claudeBin: resolve(c.CLAUDE_BIN ?? resolve(PACKAGE_ROOT, 'node_modules/.bin/claude')),
    workdir: resolve(c.WORKDIR ?? resolve(dataDir, 'workspace')),
    schedule: c.SCHEDULE.trim().toLowerCase() === 'off' ? null : c.SCHEDULE.trim(),
    runAtStart: c.RUN_AT_START ?? scheduleFromInterval,
    sessionTimeoutMs: c.SESSION_TIMEOUT,
    killGraceMs: c.KILL_GRACE,
    stdoutGraceMs: c.STDOUT_GRACE,
    queueSize: c.QUEUE_SIZE,
    alertDedupMs: c.ALERT_DEDUP_WINDOW,
    tiers: tierConfigs(c),
    permissionMode: c.PERMISSION_MODE,
    maxTier: c.MAX_TIER as Tier,
    dryRun: c.DRY_RUN,
    maxTurns: c.MAX_TURNS ?? null,
    mcpConfig: c.MCP_CONFIG ? resolve(c.MCP_CONFIG) : null,
    settingsFile: c.CLAUDE_SETTINGS ? resolve(c.CLAUDE_SETTINGS) : null,
    childEnv: c.CHILD_ENV,
  };
}
