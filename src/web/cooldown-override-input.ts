/**
 * An operator's cooldown reset or allowance from a form or a JSON body, checked with errors that
 * name the field: the same rules for the dashboard, the API and the CLI.
 */
import { parseDuration } from '../config/index.js';
import type { NewCooldownOverride } from '../db/index.js';
import { invalidField as invalid } from '../errors.js';
import { checkServiceName } from '../text-rules.js';
import { boolField } from './bool-field.js';
import { operatorText } from './run-input.js';
import { parseTime } from './time-range.js';

export const MAX_REASON_CHARS = 500;
export const MAX_EXTRA = 100;
/** An allowance ends within a week: a longer one is a configuration change, not an override. */
export const MAX_ALLOWANCE_MS = 7 * 86_400_000;

const text = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/**
 * `{service, action?, kind, count?, until?, reason, fleet?}`: `action` restart, redeployment or
 * both (the default); `kind` reset (actions so far stop counting) or allow (`count` more until
 * `until`, a duration from now such as 2h or a time); `fleet` true applies it to every instance
 * of the fleet, not only the one it is made on.
 */
export function parseCooldownOverride(
  input: Record<string, unknown>,
  now: number,
): Omit<NewCooldownOverride, 'actor'> {
  const service = checkServiceName(text(input.service) ?? '');
  if (!service.ok) throw invalid('service', service.reason);
  if (service.name === '') throw invalid('service', 'is required');

  const actionText = (text(input.action) ?? '').trim().toLowerCase();
  if (!['', 'both', 'restart', 'redeployment'].includes(actionText))
    throw invalid('action', 'must be restart, redeployment or both');
  const actionType = actionText === 'restart' || actionText === 'redeployment' ? actionText : null;

  const kind = (text(input.kind) ?? '').trim().toLowerCase();
  if (kind !== 'reset' && kind !== 'allow') throw invalid('kind', 'must be reset or allow');

  const reasonRaw = text(input.reason);
  if (reasonRaw === undefined) throw invalid('reason', 'is required: say why');
  const reason = operatorText('reason', reasonRaw).trim();
  if (reason === '') throw invalid('reason', 'is required: say why');
  if (reason.length > MAX_REASON_CHARS)
    throw invalid('reason', `is ${reason.length} characters; the limit is ${MAX_REASON_CHARS}`);

  const fleetWide = boolField(input, 'fleet') ?? false;
  const base = { service: service.name, actionType, reason, createdAt: now, fleetWide } as const;
  if (kind === 'reset') return { ...base, kind, extra: null, untilAt: null };

  const countText = (text(input.count) ?? '').trim();
  if (!/^\d{1,3}$/.test(countText) || Number(countText) < 1 || Number(countText) > MAX_EXTRA)
    throw invalid('count', `must be a whole number from 1 to ${MAX_EXTRA}`);
  const untilText = (text(input.until) ?? '').trim();
  if (untilText === '') throw invalid('until', 'is required: a duration such as 2h, or a time');
  const duration = /^\d+(\.\d+)?\s*(ms|s|m|h|d)$/i.test(untilText)
    ? parseDuration(untilText)
    : null;
  const untilAt = duration !== null ? now + duration : parseTime(untilText);
  if (untilAt === null)
    throw invalid(
      'until',
      'must be a duration such as 2h or a time such as 2026-11-23T18:00 (UTC)',
    );
  if (untilAt <= now) throw invalid('until', 'must be in the future');
  if (untilAt - now > MAX_ALLOWANCE_MS) throw invalid('until', 'must be within 7 days');
  return { ...base, kind, extra: Number(countText), untilAt };
}
