/**
 * The folders that hold transcripts: the only ones the Stop hook and the graph's index API read
 * from (`watchkeeper graph index PATH` reads what the operator names).
 */
import { isAbsolute, join, resolve } from 'node:path';

import type { z } from 'zod';

import { list } from './parse.js';

export const graphShape = {
  GRAPH_ROOTS: list
    .refine((items) => items.every((p) => isAbsolute(p)), {
      message: 'expected absolute folder paths separated by commas, such as /srv/transcripts',
    })
    .default([]),
};

export interface GraphConfig {
  /** Claude Code's: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`; null without HOME. */
  claudeProjectsDir: string | null;
  /** WATCHKEEPER_GRAPH_ROOTS: more folders of transcripts (saved logs, another user's projects). */
  roots: string[];
}

export function graphConfig(
  c: z.infer<z.ZodObject<typeof graphShape>>,
  env: Record<string, string | undefined>,
): GraphConfig {
  return {
    claudeProjectsDir: env.CLAUDE_CONFIG_DIR
      ? join(resolve(env.CLAUDE_CONFIG_DIR), 'projects')
      : env.HOME
        ? join(env.HOME, '.claude', 'projects')
        : null,
    roots: c.GRAPH_ROOTS.map((p) => resolve(p)),
  };
}
