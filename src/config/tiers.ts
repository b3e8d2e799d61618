/**
 * The three tiers of scheduled sessions: each one's model, prompt file, tools and memory budget.
 * A tier without its own memory budget takes the global WATCHKEEPER_MEMORY_BUDGET.
 */
import { resolve } from 'node:path';

import { z } from 'zod';

import { PACKAGE_ROOT } from './package-root.js';
import { TIER_TOOLS } from './tier-tools.js';

export type Tier = 1 | 2 | 3;

export interface TierConfig {
  model: string;
  /** Path of the prompt file for scheduled runs of this tier. */
  promptFile: string;
  allowedTools: string;
  disallowedTools: string;
  /** Token budget of this tier's memory block (WATCHKEEPER_TIERn_MEMORY_BUDGET, else the global). */
  memoryBudget: number;
}

export const DEFAULT_PROMPTS_DIR = resolve(PACKAGE_ROOT, 'prompts');
const DEFAULT_PROMPT_FILES: Record<Tier, string> = {
  1: resolve(DEFAULT_PROMPTS_DIR, 'tier1-observe.md'),
  2: resolve(DEFAULT_PROMPTS_DIR, 'tier2-investigate.md'),
  3: resolve(DEFAULT_PROMPTS_DIR, 'tier3-remediate.md'),
};

export const tierShape = {
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
};

type TierSettings = z.infer<z.ZodObject<typeof tierShape>> &
  Partial<Record<`TIER${Tier}_MEMORY_BUDGET`, number>> & { MEMORY_BUDGET: number };

export function tierConfigs(c: TierSettings): Record<Tier, TierConfig> {
  const tier = (n: Tier): TierConfig => ({
    model: c[`TIER${n}_MODEL`],
    promptFile: resolve(c[`TIER${n}_PROMPT`] ?? DEFAULT_PROMPT_FILES[n]),
    allowedTools: c[`TIER${n}_ALLOWED_TOOLS`],
    disallowedTools: c[`TIER${n}_DISALLOWED_TOOLS`],
    memoryBudget: c[`TIER${n}_MEMORY_BUDGET`] ?? c.MEMORY_BUDGET,
  });
  return { 1: tier(1), 2: tier(2), 3: tier(3) };
}
