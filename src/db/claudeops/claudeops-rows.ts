/**
 * Claude Ops' sessions, events, memories and cooldown actions as watchkeeper's rows: each row,
 * or why it cannot be one; a value stored differently from how it was given is noted.
 */
import { stripControlCharacters } from '../../text-rules.js';
import type { Category } from '../../memory/policy.js';
import type { GoCooldown, GoEvent, GoMemory, GoSession } from './claudeops-source.js';
import { parseClaudeOpsTime } from './claudeops-source.js';
import {
  CATEGORIES,
  eventLevel,
  FALLBACK_CATEGORY,
  intOrNull,
  numOrNull,
  serviceName,
  shown,
  textOrNull,
} from './claudeops-values.js';
import { SESSION_STATUSES, SESSION_TRIGGERS } from '../sessions/session-types.js';

/** A session row, or why it cannot be one. */
export function sessionRow(s: GoSession, now: number, note: (m: string) => void) {
  const startedAt = parseClaudeOpsTime(s.startedAt);
  if (startedAt === null) return `started_at ${shown(s.startedAt)} is not a time`;
  const tier = intOrNull(s.tier);
  if (tier === null || tier < 1 || tier > 3) return `tier ${shown(s.tier)} is not 1, 2 or 3`;
  let endedAt = parseClaudeOpsTime(s.endedAt);
  if (endedAt === null && s.endedAt !== null) {
    note(`ended_at ${shown(s.endedAt)} is not a time: imported without an end`);
  }
  const given = (s.status ?? '').trim().toLowerCase();
  let status = given as (typeof SESSION_STATUSES)[number];
  let error: string | null = null;
  if (given === 'running') {
    // It was cut short when Claude Ops stopped: as watchkeeper's own start-up records such a run.
    status = 'interrupted';
    endedAt ??= now;
    error = 'still running in Claude Ops when it was imported';
  } else if (!(SESSION_STATUSES as readonly string[]).includes(given)) {
    status = 'failed';
    error = `Claude Ops status ${shown(s.status)}`;
    note(`status ${shown(s.status)} is not one watchkeeper knows: imported as failed`);
  }
  const givenTrigger = (s.trigger ?? 'scheduled').trim().toLowerCase();
  const trigger = (SESSION_TRIGGERS as readonly string[]).includes(givenTrigger)
    ? givenTrigger
    : 'import';
  if (trigger !== givenTrigger)
    note(`trigger ${shown(s.trigger)} is not one watchkeeper knows: imported as import`);
  return {
    status,
    trigger,
    tier,
    model: textOrNull(s.model),
    prompt: textOrNull(s.promptText),
    startedAt,
    endedAt,
    exitCode: intOrNull(s.exitCode),
    costUsd: numOrNull(s.costUsd),
    numTurns: intOrNull(s.numTurns),
    durationMs: intOrNull(s.durationMs),
    response: textOrNull(s.response),
    error,
    // The Go sidecar's summarize.go wrote it through a model; shown as the session's summary.
    summary: s.summary === null || s.summary.trim() === '' ? null : s.summary.trim(),
  };
}

/** Claude Ops' own events (not the agent's) begin with these words (manager.go). */
const SYSTEM_EVENT = /^Escalation (blocked|suppressed)\b/;

export function eventRow(e: GoEvent, note: (m: string) => void) {
  const createdAt = parseClaudeOpsTime(e.createdAt);
  if (createdAt === null) return `created_at ${shown(e.createdAt)} is not a time`;
  const level = eventLevel(e.level ?? '');
  if (level !== (e.level ?? '').trim().toLowerCase()) {
    note(`level ${shown(e.level)} stored as ${level}, as Claude Ops reads it`);
  }
  const service = serviceName(e.service);
  if (service.changed) note(`service ${shown(e.service)} stored as ${shown(service.name)}`);
  const message = stripControlCharacters(e.message ?? '');
  return {
    source: SYSTEM_EVENT.test(message) ? 'system' : 'agent',
    level,
    service: service.name,
    message,
    createdAt,
  };
}

export function memoryRow(m: GoMemory, note: (msg: string) => void) {
  const createdAt = parseClaudeOpsTime(m.createdAt);
  if (createdAt === null) return `created_at ${shown(m.createdAt)} is not a time`;
  let updatedAt = parseClaudeOpsTime(m.updatedAt);
  if (updatedAt === null) {
    note(`updated_at ${shown(m.updatedAt)} is not a time: its creation time is used`);
    updatedAt = createdAt;
  }
  const observation = stripControlCharacters(m.observation ?? '').trim();
  if (observation === '') return 'its observation is empty';
  const givenCategory = (m.category ?? '').trim().toLowerCase();
  let category = givenCategory as Category;
  let sourceRef = `Claude Ops memory #${m.id}`;
  if (!CATEGORIES.includes(category)) {
    category = FALLBACK_CATEGORY;
    sourceRef += `, category ${shown(m.category)}`;
    note(
      `category ${shown(m.category)} is not one of ${CATEGORIES.join(', ')}: imported as ${FALLBACK_CATEGORY}`,
    );
  }
  const given = numOrNull(m.confidence);
  const confidence =
    given === null ? 0.7 : Math.round(Math.min(1, Math.max(0, given)) * 10_000) / 10_000;
  if (given === null || Math.abs(given - confidence) > 1e-9) {
    note(`confidence ${shown(m.confidence)} stored as ${confidence}`);
  }
  let tier = intOrNull(m.tier) ?? 1;
  if (tier < 0 || tier > 3) {
    note(`tier ${shown(m.tier)} is not 0 to 3: imported as tier 1`);
    tier = 1;
  }
  const service = serviceName(m.service);
  if (service.changed) note(`service ${shown(m.service)} stored as ${shown(service.name)}`);
  return {
    service: service.name,
    category,
    observation,
    confidence,
    active: intOrNull(m.active) !== 0,
    createdAt,
    updatedAt,
    tier,
    sourceRef,
  };
}

export function cooldownRow(c: GoCooldown, note: (m: string) => void) {
  const createdAt = parseClaudeOpsTime(c.timestamp);
  if (createdAt === null) return `timestamp ${shown(c.timestamp)} is not a time`;
  const actionType = (c.actionType ?? '').trim().toLowerCase();
  if (actionType !== 'restart' && actionType !== 'redeployment') {
    return `action_type ${shown(c.actionType)} is neither restart nor redeployment`;
  }
  const service = serviceName(c.service);
  if (service.name === null) return 'it names no service';
  if (service.changed) note(`service ${shown(c.service)} stored as ${shown(service.name)}`);
  return {
    service: service.name,
    actionType,
    success: intOrNull(c.success) === 0 ? 0 : 1,
    message: textOrNull(c.error),
    tier: intOrNull(c.tier),
    createdAt,
  };
}
