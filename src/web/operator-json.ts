/** The operator controls' rows as the API shows them: snake_case, ISO times. */
import { type CooldownOverrideRow, type EventGroupRow, isoTime } from '../db/index.js';
import type { RunTicket } from '../runner/scheduler.js';

export function overrideJson(o: CooldownOverrideRow) {
  return {
    id: o.id,
    service: o.service,
    action: o.actionType ?? ('both' as const),
    kind: o.kind,
    count: o.extra,
    until: isoTime(o.untilAt),
    actor: o.actor,
    reason: o.reason,
    created_at: isoTime(o.createdAt),
    fleet: o.instance === null,
    instance: o.instance,
  };
}

export function eventGroupJson(g: EventGroupRow) {
  return {
    id: g.id,
    service: g.service,
    level: g.level,
    message: g.message,
    count: g.count,
    first_seen: isoTime(g.firstSeen),
    last_seen: isoTime(g.lastSeen),
    acked: g.acked,
    acked_at: isoTime(g.ackedAt),
    acked_by: g.ackedBy,
  };
}

/** A run in the queue (or just out of it): what started it and how often its alert came. */
export function queuedRunJson(t: RunTicket) {
  return {
    request_id: t.id,
    state: t.state,
    trigger: t.request.trigger,
    tier: t.request.startTier,
    prompt: t.request.prompt,
    alert: t.request.alert,
    queued_at: isoTime(t.queuedAt),
    repeats: t.repeats,
    session_ids: [...t.sessionIds],
    cancelled_by: t.cancelledBy,
  };
}
