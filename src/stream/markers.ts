/**
 * Markers the agent writes into its own text: `[EVENT:level:service] message`,
 * `[MEMORY:category:service] observation`, `[COOLDOWN:action:service] success - message` and
 * `[ESCALATE:tier] reason`. They are read only from the main agent's `text` blocks, never from
 * tool results, tool input, thinking, user text or `result.result` (tool output is attacker-
 * controlled, and `result.result` repeats the last text).
 */
import { normaliseService, SERVICE_PATTERN } from './names.js';
import type { StreamMessage } from './types.js';

export type EventLevel = 'info' | 'warning' | 'critical';
export type CooldownAction = 'restart' | 'redeployment';
export type MarkerKind = 'event' | 'memory' | 'cooldown' | 'escalate';

/** Marker text longer than this is reported instead of stored (never silently cut). */
export const MAX_MARKER_TEXT = 2000;

export type Marker =
  | { kind: 'event'; level: EventLevel; levelWord: string; service: string | null; message: string }
  | { kind: 'memory'; category: string; service: string | null; observation: string }
  | {
      kind: 'cooldown';
      action: CooldownAction;
      service: string;
      success: boolean;
      message: string;
    }
  | { kind: 'escalate'; tier: number; reason: string }
  | { kind: 'rejected'; markerKind: MarkerKind; reason: string; line: string };

// A marker starts a line; leading spaces and one list bullet (-, *, +, 1., 1)) are allowed.
const MARKER_LINE =
  /^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?\[(EVENT|MEMORY|COOLDOWN|ESCALATE):([^\]\r\n]*)\][ \t]*(.*)$/i;
const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/;
const WORD = /^[A-Za-z0-9_-]+$/;
const COOLDOWN_TEXT = /^(success|failure)\b[ \t]*(?:[-\u2013\u2014:][ \t]*)?(.*)$/i;
const ESCALATE_TIER = /^(?:tier)?[ \t]*([0-9])$/i;

const WARNING_WORDS = new Set(['warning', 'warn', 'degraded']);
const CRITICAL_WORDS = new Set(['critical', 'error', 'err', 'fatal', 'failure', 'failed']);

/** Maps any level word the model invents to one of the three stored levels (case-insensitive). */
export function normaliseLevel(word: string): EventLevel {
  const lower = word.toLowerCase();
  if (WARNING_WORDS.has(lower)) return 'warning';
  if (CRITICAL_WORDS.has(lower)) return 'critical';
  return 'info';
}

/** Markers in one block of assistant text, in order. Lines inside fenced code are skipped. */
export function extractMarkers(text: string): Marker[] {
  const out: Marker[] = [];
  let fence: string | null = null;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const mark = fenceMatch[1]!;
      if (fence === null) fence = mark;
      else if (mark[0] === fence[0] && mark.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const m = MARKER_LINE.exec(line);
    if (!m) continue;
    const marker = toMarker(m[1]!.toLowerCase() as MarkerKind, m[2]!, m[3]!.trim(), line.trim());
    out.push(marker);
  }
  return out;
}

/** Markers carried by one stream message: only the main agent's assistant text blocks count. */
export function markersFromMessage(message: StreamMessage): Marker[] {
  if (message.type !== 'assistant' || message.parentToolUseId !== null) return [];
  const out: Marker[] = [];
  for (const block of message.content) {
    if (block.type === 'text') out.push(...extractMarkers(block.text));
  }
  return out;
}

/** A stable identity for de-duplicating the same marker repeated within one session. */
export function markerKey(marker: Marker): string {
  return JSON.stringify(marker);
}

function toMarker(kind: MarkerKind, tag: string, text: string, line: string): Marker {
  const reject = (reason: string): Marker => ({
    kind: 'rejected',
    markerKind: kind,
    reason,
    line: clip(line),
  });
  if (text.length > MAX_MARKER_TEXT) {
    return reject(`text is ${text.length} characters, over the limit of ${MAX_MARKER_TEXT}`);
  }
  if (text.length === 0) return reject('no text after the marker');
  const fields = tag.split(':').map((f) => f.trim());
  switch (kind) {
    case 'event': {
      const [level = '', service, ...extra] = fields;
      if (!WORD.test(level) || extra.length > 0) return reject(`bad event tag "${tag}"`);
      const svc = optionalService(service);
      if (svc === false) return reject(`bad service name "${service ?? ''}"`);
      return { kind, level: normaliseLevel(level), levelWord: level, service: svc, message: text };
    }
    case 'memory': {
      const [category = '', service, ...extra] = fields;
      if (!WORD.test(category) || extra.length > 0) return reject(`bad memory tag "${tag}"`);
      const svc = optionalService(service);
      if (svc === false) return reject(`bad service name "${service ?? ''}"`);
      return { kind, category: category.toLowerCase(), service: svc, observation: text };
    }
    case 'cooldown': {
      const [action = '', service = '', ...extra] = fields;
      const act = action.toLowerCase();
      if ((act !== 'restart' && act !== 'redeployment') || extra.length > 0) {
        return reject(`cooldown action must be restart or redeployment, got "${action}"`);
      }
      if (!SERVICE_PATTERN.test(service)) return reject(`bad service name "${service}"`);
      const outcome = COOLDOWN_TEXT.exec(text);
      if (!outcome) return reject('cooldown text must start with success or failure');
      return {
        kind,
        action: act,
        service: normaliseService(service),
        success: outcome[1]!.toLowerCase() === 'success',
        message: outcome[2]!.trim(),
      };
    }
    case 'escalate': {
      const tier = ESCALATE_TIER.exec(tag.trim());
      if (!tier) return reject(`bad escalation tier "${tag}"`);
      return { kind, tier: Number(tier[1]), reason: text };
    }
  }
}

/** undefined/empty means no service; false means a malformed one. */
function optionalService(service: string | undefined): string | null | false {
  if (service === undefined || service === '') return null;
  if (!SERVICE_PATTERN.test(service)) return false;
  return normaliseService(service);
}

function clip(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
