/**
 * The settings every part shares: the data folder, the memory block's token budget, the longest
 * stream line, logging, and what `/metrics` and the Homepage stats answer.
 */
import { resolve } from 'node:path';

import { z } from 'zod';

import { defaultDataDir } from './default-data-dir.js';
import { bool, int } from './parse.js';

export const generalShape = {
  DATA_DIR: z.string().min(1).optional(),
  // The container image's data folders (default-data-dir.ts): a default only, so an operator's
  // WATCHKEEPER_DATA_DIR or CLAUDEOPS_STATE_DIR wins over it.
  DEFAULT_DATA_DIR: z.string().min(1).optional(),
  MEMORY_BUDGET: int(0, 1_000_000).default(2000),
  TIER1_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  TIER2_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  TIER3_MEMORY_BUDGET: int(0, 1_000_000).optional(),
  MAX_LINE_BYTES: int(1024, 1024 * 1024 * 1024).default(16 * 1024 * 1024),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  METRICS: z.enum(['on', 'public', 'off']).default('on'),
  HOMEPAGE_STATS: bool.default(false),
};

export interface GeneralConfig {
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
}

export function generalConfig(c: z.infer<z.ZodObject<typeof generalShape>>): GeneralConfig {
  const dataDir = resolve(c.DATA_DIR ?? defaultDataDir(c.DEFAULT_DATA_DIR));
  return {
    dataDir,
    dbPath: resolve(dataDir, 'watchkeeper.db'),
    sessionsDir: resolve(dataDir, 'sessions'),
    memoryBudget: c.MEMORY_BUDGET,
    maxLineBytes: c.MAX_LINE_BYTES,
    logLevel: c.LOG_LEVEL,
    logFormat: c.LOG_FORMAT,
    observability: { metrics: c.METRICS, homepageStats: c.HOMEPAGE_STATS },
  };
}
