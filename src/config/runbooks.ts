/**
 * The operator's runbooks: the folder whose subfolders are infrastructure repositories (Claude
 * Ops mounted them under /repos), and how much of each tier's system prompt their index may take.
 */
import { resolve } from 'node:path';

import { z } from 'zod';

import { int } from './parse.js';

export const runbooksShape = {
  REPOS_DIR: z.string().min(1).optional(),
  TIER1_RUNBOOK_BUDGET: int(0, 1_000_000).default(4000),
  TIER2_RUNBOOK_BUDGET: int(0, 1_000_000).default(8000),
  TIER3_RUNBOOK_BUDGET: int(0, 1_000_000).default(8000),
};

export interface RunbooksConfig {
  /** Absolute path of the repositories folder; null: the built-in library only. */
  reposDir: string | null;
  /** Characters of the system prompt the runbooks section may take, per tier; 0: none. */
  budgets: Record<1 | 2 | 3, number>;
}

export function runbooksConfig(c: z.infer<z.ZodObject<typeof runbooksShape>>): RunbooksConfig {
  return {
    reposDir: c.REPOS_DIR ? resolve(c.REPOS_DIR) : null,
    budgets: { 1: c.TIER1_RUNBOOK_BUDGET, 2: c.TIER2_RUNBOOK_BUDGET, 3: c.TIER3_RUNBOOK_BUDGET },
  };
}
