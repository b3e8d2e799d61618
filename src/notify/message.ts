/**
 * What watchkeeper notifies about, and how each reads: a title, a body, a level, and the key
 * that makes a repeat the same notification (kind, service and message; never a session id,
 * which differs on every run).
 */
import {
  LONE_INSTANCE,
  type NewNotification,
  type NotificationLevel,
  type NotificationRow,
} from '../db/index.js';
import type { RunnerAlert } from '../runner/alerts.js';

/** The events the runner reports: one type, declared where they are raised. */
export type NotifyTrigger = RunnerAlert;

/** Session endings worth a notification: the operator's own stop is not one. */
export const NOTIFIED_ENDINGS = new Set(['failed', 'timed_out', 'interrupted']);

const MAX_BODY = 1500;

function clip(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Same words, same notification: case, spacing and digits (counts, pids, times) ignored. */
function norm(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().slice(0, 500);
}

function sessionLine(sessionId: number | null, tier: number | null): string {
  if (sessionId === null) return '';
  return `\n\nSession #${sessionId}${tier !== null ? ` (tier ${tier})` : ''}.`;
}

const ENDING: Record<string, string> = {
  failed: 'failed',
  timed_out: 'timed out',
  interrupted: 'was interrupted',
};

/** The stored form of a trigger (without `at`). */
export function describe(t: NotifyTrigger): Omit<NewNotification, 'at'> {
  switch (t.kind) {
    case 'critical_event':
      return {
        kind: 'critical_event',
        level: 'failure',
        service: t.service,
        title: `Critical${t.service ? `: ${t.service}` : ''}`,
        body: clip(t.message, MAX_BODY) + sessionLine(t.sessionId, t.tier),
        dedupKey: `critical_event|${t.service ?? ''}|${norm(t.message)}`,
        sessionId: t.sessionId,
      };
    case 'escalation':
      return {
        kind: 'escalation',
        level: 'warning',
        service: null,
        title: `Escalated to tier ${t.toTier}`,
        body: `${clip(t.reason, MAX_BODY) || '(no reason given)'}\n\nTier ${t.fromTier} session #${t.sessionId} asked for tier ${t.toTier}.`,
        dedupKey: `escalation|${t.toTier}|${norm(t.reason)}`,
        sessionId: t.sessionId,
      };
    case 'session_ended':
      return {
        kind: 'session_failed',
        level: 'failure',
        service: null,
        title: `Session ${ENDING[t.status] ?? t.status}`,
        body:
          clip(t.error ?? `the session ended ${t.status}`, MAX_BODY) +
          sessionLine(t.sessionId, t.tier),
        dedupKey: `session_failed|${t.status}|${norm(t.error ?? '')}`,
        sessionId: t.sessionId,
      };
    case 'guard_refused':
      return {
        kind: 'guard_refused',
        level: 'warning',
        service: t.service === '*' ? null : t.service,
        title: `Blocked ${t.action}${t.service === '*' ? '' : ` of ${t.service}`} (cooldown)`,
        body: `${clip(t.reason, MAX_BODY)}\n\nCommand: ${clip(t.command, 300)}${sessionLine(t.sessionId, null)}`,
        dedupKey: `guard_refused|${t.service}|${t.action}`,
        sessionId: t.sessionId,
      };
  }
}

/**
 * The text a target receives: the stored title and body, with the count and what was held back.
 * In a fleet the title names the instance that raised it (a lone sidecar is the instance `local`,
 * and says nothing of it): one chat channel often hears every sidecar.
 */
export function outgoing(
  n: NotificationRow,
  o: { suppressed: number; instance: string },
): { title: string; body: string; level: NotificationLevel } {
  let body = n.body;
  if (n.count > 1)
    body += `\n\nSeen ${n.count} times since ${new Date(n.createdAt).toISOString()}.`;
  if (o.suppressed > 0) {
    body += `\n\n${o.suppressed} earlier notification${o.suppressed === 1 ? ' was' : 's were'} held back by the rate limit: see the Notifications page.`;
  }
  const from = o.instance === LONE_INSTANCE ? 'watchkeeper' : `watchkeeper ${o.instance}`;
  return { title: `${from}: ${n.title}`, body, level: n.level };
}
