/**
 * The Go sidecar's (Claude Ops) settings that watchkeeper reads under another name, and those it
 * does not have, with what to do instead. Every other `CLAUDEOPS_X` is read as `WATCHKEEPER_X`.
 */
import { AppError } from '../errors.js';
import { intervalSchedule } from './interval.js';
import type { SettingKey } from './schema.js';

function parseBool(value: string, name: string): boolean {
  const t = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  if (['0', 'false', 'no', 'off'].includes(t)) return false;
  throw new AppError('config_invalid', `${name}=${JSON.stringify(value)}: expected true or false`, {
    data: { variable: name },
  });
}

/**
 * The Go sidecar's settings whose watchkeeper name differs (its configuration table). `translate`
 * turns the Go value into the watchkeeper value, or null when it asks for nothing.
 */
export const CLAUDEOPS_RENAMED: Record<
  string,
  { key: SettingKey; translate?: (value: string, name: string) => string | null }
> = {
  INTERVAL: { key: 'SCHEDULE', translate: intervalSchedule },
  PROMPT: { key: 'TIER1_PROMPT' },
  STATE_DIR: { key: 'DATA_DIR' },
  // The Go agent looked for the infrastructure repos there: watchkeeper's agent works in WORKDIR,
  // and CLAUDEOPS_REPOS_DIR is also read as WATCHKEEPER_REPOS_DIR (its runbooks).
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

const NO_WEBHOOK_MODEL =
  'POST /api/v1/webhook hands the alert text to the session as it is, with no model in between: remove it';

/**
 * The Go sidecar's settings watchkeeper does not have, with what to do instead. A value that asks
 * for nothing (empty, or false for a switch) is accepted, so the Go compose file's defaults load.
 */
export const CLAUDEOPS_REFUSED: Record<
  string,
  { replacement: string; idle?: (v: string) => boolean }
> = {
  RESULTS_DIR: {
    replacement:
      'session logs are kept in WATCHKEEPER_DATA_DIR/sessions, beside the database: set WATCHKEEPER_DATA_DIR (or CLAUDEOPS_STATE_DIR) instead',
  },
  BROWSER_ALLOWED_ORIGINS: {
    replacement:
      'watchkeeper has no browser automation of its own: give the agent a browser through an MCP server in WATCHKEEPER_MCP_CONFIG',
  },
  WEBHOOK_MODEL: { replacement: NO_WEBHOOK_MODEL },
  WEBHOOK_SYSTEM_PROMPT: { replacement: NO_WEBHOOK_MODEL },
  SCHEMA_PATH: {
    replacement:
      "watchkeeper reads the agent's markers ([EVENT:...], [MEMORY:...], [ESCALATE:n]), not --json-schema output; the tier prompts (WATCHKEEPER_TIER{1,2,3}_PROMPT) say what to report: remove it",
  },
  // Claude Ops set it itself, per session, for the CLI it spawned (the tier that session ran at);
  // it never chose where a run starts.
  TIER: {
    replacement:
      'the tier a run starts at is chosen per run: `watchkeeper run --tier N`, `start_tier` (or `tier`) on POST /api/v1/sessions or POST /api/v1/sessions/trigger, or the tier of Run now; scheduled runs start at Tier 1 and escalate up to WATCHKEEPER_MAX_TIER (CLAUDEOPS_MAX_TIER): remove it',
  },
  PR_ENABLED: {
    replacement: 'it had no effect in Claude Ops either: remove it',
    idle: (v) => ['0', 'false', 'no', 'off'].includes(v.trim().toLowerCase()),
  },
};
