/**
 * The raw value of each setting, from the first of its names that is set: `WATCHKEEPER_X`, then
 * `CLAUDEOPS_X`, then the Go sidecar's other name for it. A later name also set is reported, as is
 * a Claude Ops setting read under a watchkeeper meaning.
 */
import { CLAUDEOPS_RENAMED } from './claudeops-aliases.js';
import { ALIAS_PREFIX, PREFIX, SCHEMA } from './schema.js';

export function readSettings(env: Record<string, string | undefined>) {
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
          `${name}=${raw} runs on the schedule "${value}" (WATCHKEEPER_SCHEDULE): at fixed times, not counted from the end of the previous run; the first run starts with serve, as in Claude Ops, unless WATCHKEEPER_RUN_AT_START=false`,
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
