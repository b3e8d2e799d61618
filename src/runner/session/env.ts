/**
 * The CLI child's environment: the allow-listed parent variables, and what the session's hooks
 * (`watchkeeper hook pre-tool-use` and the memory server) need to find and guard this session.
 */

/**
 * The CLI's own folder (its transcripts grow there): the operator's CLAUDE_CONFIG_DIR, else
 * DATA_DIR/claude when the credential comes from the environment (nothing in ~/.claude is needed,
 * and the transcripts stay on the data volume, pruned with the sessions). A `claude login`
 * credential lives in ~/.claude, so without one in the environment the CLI keeps its default.
 */
export function claudeConfigDir(deps: Pick<SessionRunnerDeps, 'config' | 'env'>): string | null {
  if (deps.env.CLAUDE_CONFIG_DIR) return null;
  return deps.config.modelCredentialConfigured ? claudeDataDir(deps.config.dataDir) : null;
}

/** The CLI's folder in the data folder. */
export function claudeDataDir(dataDir: string): string {
  return join(dataDir, 'claude');
}
import { join } from 'node:path';

import { childEnv } from '../../process/child-env.js';
import type { SessionRunnerDeps, Tier } from './request.js';

export function sessionEnv(
  deps: SessionRunnerDeps,
  sessionId: number,
  tier: Tier,
): Record<string, string> {
  const { config } = deps;
  const runner = config.runner;
  const configDir = claudeConfigDir(deps);
  return childEnv({
    parent: deps.env,
    extra: runner.childEnv,
    set: {
      WATCHKEEPER_DATA_DIR: config.dataDir,
      ...(configDir ? { CLAUDE_CONFIG_DIR: configDir } : {}),
      WATCHKEEPER_SESSION_ID: String(sessionId),
      WATCHKEEPER_TIER: String(tier),
      // The guard enforces the checkable rules of the repositories' manifests.
      ...(config.runbooks.reposDir ? { WATCHKEEPER_REPOS_DIR: config.runbooks.reposDir } : {}),
      // The guard (`watchkeeper hook pre-tool-use`) refuses every restart on a dry run.
      WATCHKEEPER_DRY_RUN: String(runner.dryRun),
      // What the operator lets the guard pass (aliases, interpreters that start processes, hooks).
      WATCHKEEPER_GUARD_ALLOW_INTERPRETERS: config.guard.interpreters.join(','),
      WATCHKEEPER_GUARD_ALLOW_ALIASES: String(config.guard.aliases),
      WATCHKEEPER_GUARD_ALLOW_HOOKS: (config.guard.hooks ?? []).join(','),
      WATCHKEEPER_RESTART_LIMIT: String(config.cooldowns.restart.limit),
      WATCHKEEPER_RESTART_WINDOW: `${config.cooldowns.restart.windowMs}ms`,
      WATCHKEEPER_REDEPLOY_LIMIT: String(config.cooldowns.redeployment.limit),
      WATCHKEEPER_REDEPLOY_WINDOW: `${config.cooldowns.redeployment.windowMs}ms`,
      // The hook records refused attempts as notifications, de-duplicated like the rest.
      WATCHKEEPER_NOTIFY_DEDUP_WINDOW: `${config.notifications.dedupWindowMs}ms`,
      // The hook counts this instance's actions, and the fleet's on the shared services,
      // in the same database as this process.
      WATCHKEEPER_INSTANCE: config.fleet.instance,
      WATCHKEEPER_FLEET_COOLDOWN_SERVICES: config.fleet.cooldownServices.join(','),
      ...(config.fleet.databaseUrl ? { WATCHKEEPER_DATABASE_URL: config.fleet.databaseUrl } : {}),
      ...deps.childEnvOverrides,
    },
  });
}
