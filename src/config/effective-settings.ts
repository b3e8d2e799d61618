/**
 * Every setting as it is in effect, for the Settings page: its text as given (or its default),
 * and where it came from: the `WATCHKEEPER_X` variable, a Claude Ops `CLAUDEOPS_` name, or the
 * default. Values are raw here; the page masks the secrets.
 */
import { PREFIX, SCHEMA, SECRET_KEYS } from './schema.js';

export interface EffectiveSetting {
  /** `WATCHKEEPER_X`, the name the README documents. */
  name: string;
  /** As given, or the default as text; null when neither (unset, optional). */
  value: string | null;
  /** The variable the value was read from, or null for the default. */
  source: string | null;
  secret: boolean;
}

function defaultText(key: keyof typeof SCHEMA.shape): string | null {
  const parsed = SCHEMA.shape[key].safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return null;
  const v: unknown = parsed.data;
  return Array.isArray(v) ? v.join(',') : String(v);
}

export function effectiveSettings(
  input: Record<string, string>,
  sourceName: Record<string, string>,
): EffectiveSetting[] {
  return (Object.keys(SCHEMA.shape) as (keyof typeof SCHEMA.shape)[]).map((key) => ({
    name: PREFIX + key,
    value: input[key] ?? defaultText(key),
    source: sourceName[key] ?? null,
    secret: SECRET_KEYS.has(key),
  }));
}
