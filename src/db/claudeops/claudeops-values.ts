/**
 * Claude Ops' values as watchkeeper stores them: event levels, service names, categories, and
 * numbers and texts that may be missing or of the wrong type in a hand-edited database.
 */
import type { Category } from '../../memory/policy.js';
import { normaliseServiceName, SERVICE_NAME } from '../../text-rules.js';

export const CATEGORIES: readonly Category[] = [
  'timing',
  'dependency',
  'behavior',
  'remediation',
  'maintenance',
];
/** Where a memory of a category watchkeeper does not know goes (its category stays in source_ref). */
export const FALLBACK_CATEGORY: Category = 'behavior';

/** The Go sidecar's level normalisation (normalizeEventLevel), for rows the hook wrote as given. */
export function eventLevel(raw: string): 'info' | 'warning' | 'critical' {
  const l = raw.trim().toLowerCase();
  if (['warning', 'warn', 'degraded'].includes(l)) return 'warning';
  if (['critical', 'error', 'err', 'fatal', 'failure', 'failed'].includes(l)) return 'critical';
  return 'info';
}

/** A service name in watchkeeper's spelling: lower case, and other characters made `-`. */
export function serviceName(raw: string | null): { name: string | null; changed: boolean } {
  if (raw === null || raw.trim() === '') return { name: null, changed: false };
  const name = normaliseServiceName(raw);
  if (SERVICE_NAME.test(name)) return { name, changed: false };
  const slug = name
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 100);
  return { name: slug === '' ? null : slug, changed: true };
}

export function intOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null;
}

export function numOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function textOrNull(value: string | null): string | null {
  return value === null || value === '' ? null : value;
}

/** A printable form of a stored value for a message. */
export function shown(value: unknown): string {
  const text = value === null || value === undefined ? 'empty' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
