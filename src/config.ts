/**
 * Configuration: one schema, parsed once from the environment, with errors that name the
 * variable and the bad value. The only module that reads `process.env` (through its caller).
 * Every `WATCHKEEPER_X` may also be given as the Go sidecar's `CLAUDEOPS_X`.
 */
import { resolve } from 'node:path';

import { z } from 'zod';

import { AppError } from './errors.js';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const SCHEMA = z.object({
  DATA_DIR: z.string().min(1).default('./data'),
  MEMORY_BUDGET: int(0, 1_000_000).default(2000),
  MAX_LINE_BYTES: int(1024, 1024 * 1024 * 1024).default(16 * 1024 * 1024),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

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
}

const PREFIX = 'WATCHKEEPER_';
const ALIAS_PREFIX = 'CLAUDEOPS_';

/** Parses the environment; throws `config_invalid` naming the variable and value at fault. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const input: Record<string, string> = {};
  const sourceName: Record<string, string> = {};
  for (const key of Object.keys(SCHEMA.shape)) {
    const value = env[PREFIX + key] ?? env[ALIAS_PREFIX + key];
    if (value === undefined || value === '') continue;
    input[key] = value;
    sourceName[key] = env[PREFIX + key] !== undefined ? PREFIX + key : ALIAS_PREFIX + key;
  }
  const parsed = SCHEMA.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const name = sourceName[key] ?? PREFIX + key;
    throw new AppError(
      'config_invalid',
      `${name}=${JSON.stringify(input[key])}: ${issue.message}`,
      {
        data: { variable: name },
      },
    );
  }
  const c = parsed.data;
  const dataDir = resolve(c.DATA_DIR);
  return {
    dataDir,
    dbPath: resolve(dataDir, 'watchkeeper.db'),
    sessionsDir: resolve(dataDir, 'sessions'),
    memoryBudget: c.MEMORY_BUDGET,
    maxLineBytes: c.MAX_LINE_BYTES,
    logLevel: c.LOG_LEVEL,
  };
}
