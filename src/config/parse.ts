/**
 * The value parsers every area's schema is built from: durations, whole numbers in a range,
 * switches, comma lists and http(s) addresses. Each failure message names what was expected.
 */
import { z } from 'zod';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `90s`, `1h`, `500ms`, `2d`, or a plain number of seconds -> milliseconds. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(text);
  if (!m) return null;
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? 's').toLowerCase()]!);
}

export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const duration = (min: number) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === null || ms < min) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a duration such as 90s, 30m or 2h (at least ${min / 1000}s)`,
      });
      return z.NEVER;
    }
    return ms;
  });

export const bool = z.string().transform((text, ctx) => {
  const t = text.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  if (['0', 'false', 'no', 'off'].includes(t)) return false;
  ctx.addIssue({ code: 'custom', message: 'expected true or false' });
  return z.NEVER;
});

export const list = z.string().transform((text) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** An http:// or https:// address. */
export const httpUrl = z.string().refine(
  (text) => {
    try {
      return ['http:', 'https:'].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  },
  { message: 'expected an http:// or https:// URL such as http://127.0.0.1:11434' },
);
