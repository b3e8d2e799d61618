/**
 * The tier prompt files must exist before anything runs: a missing one otherwise surfaces only as
 * a failed session at the first run that reaches that tier (a Claude Ops compose file's relative
 * `prompts/...` paths are resolved from the working folder).
 */
import { existsSync, statSync } from 'node:fs';

import { AppError } from '../errors.js';
import type { Tier } from './tiers.js';
import type { Config } from './types.js';

/** Throws `config_invalid` naming the setting and the path of the first prompt file missing. */
export function checkPromptFiles(config: Pick<Config, 'runner' | 'sources'>): void {
  for (const tier of [1, 2, 3] as Tier[]) {
    const path = config.runner.tiers[tier].promptFile;
    if (existsSync(path) && statSync(path).isFile()) continue;
    const name = config.sources[`TIER${tier}_PROMPT`] ?? `WATCHKEEPER_TIER${tier}_PROMPT`;
    throw new AppError(
      'config_invalid',
      `${name}: the tier ${tier} prompt file ${path} does not exist (relative paths are read from the working folder, ${process.cwd()})`,
      { data: { variable: name } },
    );
  }
}
