/**
 * Cooldowns: at most N restarts (or redeployments) of a service within a sliding window,
 * counted from the cooldown_actions the agent reported. Per instance, except for the services
 * the fleet shares (WATCHKEEPER_FLEET_COOLDOWN_SERVICES), whose rows come from every instance.
 * Pure: rows and `now` in.
 */
import type { CooldownLimits } from '../config/index.js';
import type { CooldownOverrideRow, CooldownRow } from '../db/index.js';
import type { CooldownAction } from '../stream/index.js';
import { checkServiceName } from '../text-rules.js';

export interface ServiceCooldown {
  service: string;
  action: CooldownAction;
  count: number;
  limit: number;
  windowMs: number;
  inCooldown: boolean;
  lastAt: number;
  /** When the oldest counted action leaves the window (and a slot frees), if in cooldown. */
  freeAt: number | null;
  /** More actions an operator allowed (already in `limit`), and until when. */
  allowance?: { extra: number; untilAt: number };
  /** The operator's latest reset: actions before it no longer count. */
  resetAt?: number;
  /**
   * A service the fleet shares: how many of the counted actions each instance took, most first
   * (the limit holds across them all).
   */
  fleet?: { instance: string; count: number }[];
}

type Override = Pick<
  CooldownOverrideRow,
  'service' | 'actionType' | 'kind' | 'extra' | 'untilAt' | 'createdAt'
>;

const covers = (o: Override, service: string, action: CooldownAction) =>
  o.service === service && (o.actionType === null || o.actionType === action);

export const ACTIONS: readonly CooldownAction[] = ['restart', 'redeployment'];

/** The oldest time any window can reach back to at `now`. */
export function cooldownHorizon(limits: CooldownLimits, now: number): number {
  return now - Math.max(limits.restart.windowMs, limits.redeployment.windowMs);
}

/**
 * Per service and action, every pair with at least one action inside its window. `overrides`
 * (an operator's resets and allowances in effect at `now`) drop the actions a reset covers and
 * raise the limit by the allowances still running.
 */
export function cooldownState(
  rows: readonly Pick<CooldownRow, 'service' | 'actionType' | 'createdAt' | 'instance'>[],
  limits: CooldownLimits,
  now: number,
  overrides: readonly Override[] = [],
  /** Services whose limits count every instance's actions: their state says who took them. */
  sharedServices: readonly string[] = [],
): ServiceCooldown[] {
  const shared = new Set(sharedServices.map((s) => s.trim().toLowerCase()));
  const resetAt = (service: string, action: CooldownAction): number | undefined => {
    let at: number | undefined;
    for (const o of overrides) {
      if (o.kind === 'reset' && o.createdAt <= now && covers(o, service, action))
        at = Math.max(at ?? o.createdAt, o.createdAt);
    }
    return at;
  };
  const allowance = (service: string, action: CooldownAction) => {
    let extra = 0;
    let untilAt = 0;
    for (const o of overrides) {
      if (o.kind !== 'allow' || o.createdAt > now || (o.untilAt ?? 0) <= now) continue;
      if (!covers(o, service, action)) continue;
      extra += o.extra ?? 0;
      untilAt = Math.max(untilAt, o.untilAt ?? 0);
    }
    return extra > 0 ? { extra, untilAt } : undefined;
  };
  const groups = new Map<string, number[]>();
  const byInstance = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const { windowMs } = limits[row.actionType];
    if (row.createdAt < now - windowMs || row.createdAt > now) continue;
    const reset = resetAt(row.service, row.actionType);
    if (reset !== undefined && row.createdAt <= reset) continue;
    const key = `${row.service}\u0000${row.actionType}`;
    const times = groups.get(key) ?? [];
    times.push(row.createdAt);
    groups.set(key, times);
    if (shared.has(row.service)) {
      const counts = byInstance.get(key) ?? new Map<string, number>();
      counts.set(row.instance, (counts.get(row.instance) ?? 0) + 1);
      byInstance.set(key, counts);
    }
  }
  const out: ServiceCooldown[] = [];
  for (const [key, times] of groups) {
    const [service, action] = key.split('\u0000') as [string, CooldownAction];
    const allowed = allowance(service, action);
    const reset = resetAt(service, action);
    const { windowMs } = limits[action];
    const limit = limits[action].limit + (allowed?.extra ?? 0);
    times.sort((a, b) => a - b);
    const inCooldown = times.length >= limit;
    // With `limit` allowed, a slot frees when the (count - limit + 1)-th oldest leaves the window.
    const freeing = times[times.length - limit];
    out.push({
      service,
      action,
      count: times.length,
      limit,
      windowMs,
      inCooldown,
      lastAt: times[times.length - 1]!,
      freeAt: inCooldown ? (freeing ?? times[0]!) + windowMs : null,
      ...(allowed ? { allowance: allowed } : {}),
      ...(reset !== undefined ? { resetAt: reset } : {}),
      ...(byInstance.has(key) ? { fleet: fleetCounts(byInstance.get(key)!) } : {}),
    });
  }
  return out.sort((a, b) => a.service.localeCompare(b.service) || a.action.localeCompare(b.action));
}

function fleetCounts(counts: Map<string, number>): { instance: string; count: number }[] {
  return [...counts]
    .map(([instance, count]) => ({ instance, count }))
    .sort((a, b) => b.count - a.count || a.instance.localeCompare(b.instance));
}

function hours(ms: number): string {
  const h = ms / 3_600_000;
  return Number.isInteger(h) ? `${h}h` : `${Math.round(ms / 60_000)}m`;
}

function utcTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Character budget of the cooldown section, so that many services cannot crowd out the rest. */
export const MAX_COOLDOWN_BLOCK_CHARS = 4000;
const OMITTED_LINE_RESERVE = 160;

/**
 * The cooldown section of the appended system prompt, within `maxChars`. Services in cooldown
 * come first (they are what the agent must leave alone); a name the service rule refuses (stored
 * before the rule existed) is not listed. The guard enforces every limit whether listed or not.
 */
export function formatCooldownContext(
  state: readonly ServiceCooldown[],
  limits: CooldownLimits,
  maxChars = MAX_COOLDOWN_BLOCK_CHARS,
): string {
  const header =
    '## Cooldown state\n' +
    `Limits per service: ${limits.restart.limit} restart(s) per ${hours(limits.restart.windowMs)}, ` +
    `${limits.redeployment.limit} redeployment(s) per ${hours(limits.redeployment.windowMs)}. ` +
    'watchkeeper blocks a command that would exceed them.';
  if (state.length === 0) return `${header}\nNo restarts or redeployments in the current windows.`;
  const ordered = [...state].sort((a, b) => Number(b.inCooldown) - Number(a.inCooldown));
  const lines: string[] = [];
  let used = header.length;
  let full = false;
  let omitted = 0;
  let omittedInCooldown = 0;
  for (const s of ordered) {
    const line =
      `- ${s.service}: ${s.action} ${s.count}/${s.limit} in ${hours(s.windowMs)}` +
      (s.inCooldown ? ` - IN COOLDOWN until ${utcTime(s.freeAt!)}` : '');
    if (checkServiceName(s.service).ok && !full) {
      full = used + 1 + line.length > maxChars - OMITTED_LINE_RESERVE;
      if (!full) {
        lines.push(line);
        used += 1 + line.length;
        continue;
      }
    }
    omitted += 1;
    if (s.inCooldown) omittedInCooldown += 1;
  }
  if (omitted > 0) {
    lines.push(
      `- ... ${omitted} more not shown (${omittedInCooldown} of them in cooldown); ` +
        'the limits hold for them all the same.',
    );
  }
  return `${header}\n${lines.join('\n')}`;
}

/** Who used a shared service's limit: "instance cluster-a (2), instance cluster-b (1)". */
function usedBy(fleet: readonly { instance: string; count: number }[]): string {
  return fleet.map((f) => `instance ${f.instance} (${f.count})`).join(', ');
}

/** A one-line reason for refusing `action` on `service`; `detail` says which command and why. */
export function cooldownReason(s: ServiceCooldown, detail?: string): string {
  const fleet = s.fleet
    ? ` across the fleet, shared by every instance; used by ${usedBy(s.fleet)}`
    : '';
  return (
    `watchkeeper: ${s.service} is in ${s.action} cooldown (${s.count} of ${s.limit} allowed in ` +
    `${hours(s.windowMs)}${fleet}; next allowed after ${utcTime(s.freeAt!)}).` +
    (detail ? ` ${detail}.` : '') +
    ' Do not retry or work around this; report that a human is needed.'
  );
}
