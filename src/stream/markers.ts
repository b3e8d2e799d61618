/**
 * Markers the agent writes into its own text: `[EVENT:level:service] message`,
 * `[MEMORY:category:service] observation`, `[COOLDOWN:action:service] success - message`,
 * `[SERVICE:name] what it is`, `[ESCALATE:tier] reason` and `[HEALTH:status:service] detail`. They are read only from the main agent's `text` blocks, never from
 * tool results, tool input, thinking, user text or `result.result` (tool output is attacker-
 * controlled, and `result.result` repeats the last text).
 *
 * The model also quotes tool output in its own text, so only its prose yields markers; whatever
 * Markdown shows as quoted or as code never does. Which lines those are is decided as the
 * dashboard renders the text (CommonMark, see markdown-blocks.ts): a blockquote with its lazy
 * continuation lines, a fenced code block (closed only by a fence indented at most three spaces
 * past its container; fences do not nest, and one never closed runs to the end of its
 * container), an indented code block. A marker starts a line, after at most 3 spaces and at
 * most one list bullet (`-`, `*`, `+`, `1.`, `1)`).
 * Known limit: quoted text holding a bare closing fence of its own ends the model's fence early,
 * as in any Markdown renderer, and a marker after that line reads as the model's prose (the
 * dashboard shows it so too).
 *
 * Text is stored without control characters, and service names follow the one rule of
 * src/text-rules.ts (a bad or over-long name rejects the marker). Nothing here spreads a message's
 * blocks or a block's lines into call arguments (a message can carry 200K blocks), and every
 * pattern runs in linear time on a line of any length.
 */
import { stripControlCharacters } from '../text-rules.js';
import { markdownLines, quotedLines } from './markdown-blocks.js';
import { checkServiceName } from './names.js';
import type { StreamMessage } from './types.js';

export type EventLevel = 'info' | 'warning' | 'critical';
export type CooldownAction = 'restart' | 'redeployment';
export type MarkerKind = 'event' | 'memory' | 'cooldown' | 'service' | 'escalate' | 'health';
export type HealthState = 'healthy' | 'degraded' | 'down' | 'unreachable';

/** Marker text longer than this is reported instead of stored (never silently cut). */
export const MAX_MARKER_TEXT = 2000;
/** What a service is, in a sentence or two (the operator's description box holds the same). */
export const MAX_SERVICE_DESCRIPTION = 500;

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
  | { kind: 'service'; service: string; description: string }
  | { kind: 'escalate'; tier: number; reason: string }
  | { kind: 'health'; health: HealthState; service: string; detail: string | null }
  | { kind: 'rejected'; markerKind: MarkerKind; reason: string; line: string };

// At most 3 spaces (no tab), one optional list bullet, then the marker.
const MARKER_LINE =
  /^ {0,3}(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?\[(EVENT|MEMORY|COOLDOWN|SERVICE|ESCALATE|HEALTH):([^\]\r\n]*)\][ \t]*(.*)$/i;
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

const HEALTH_WORDS: Record<string, HealthState> = {
  healthy: 'healthy',
  ok: 'healthy',
  up: 'healthy',
  degraded: 'degraded',
  slow: 'degraded',
  warning: 'degraded',
  down: 'down',
  failed: 'down',
  failing: 'down',
  critical: 'down',
  unreachable: 'unreachable',
  unknown: 'unreachable',
  timeout: 'unreachable',
};

/** One of the four health states for the words a model uses (case-insensitive); null if none. */
export function normaliseHealth(word: string): HealthState | null {
  return HEALTH_WORDS[word.toLowerCase()] ?? null;
}

/** Markers in one block of assistant text, in order, skipping quoted and code lines. */
export function extractMarkers(text: string): Marker[] {
  const out: Marker[] = [];
  const lines = markdownLines(text);
  const quoted = quotedLines(lines);
  for (let i = 0; i < lines.length; i += 1) {
    if (quoted[i]) continue;
    const line = lines[i]!;
    const m = MARKER_LINE.exec(line);
    if (m) out.push(toMarker(m[1]!.toLowerCase() as MarkerKind, m[2]!, m[3]!, line));
  }
  return out;
}

/** Markers carried by one stream message: only the main agent's assistant text blocks count. */
export function markersFromMessage(message: StreamMessage): Marker[] {
  if (message.type !== 'assistant' || message.parentToolUseId !== null) return [];
  const out: Marker[] = [];
  for (const block of message.content) {
    if (block.type !== 'text') continue;
    for (const marker of extractMarkers(block.text)) out.push(marker);
  }
  return out;
}

/** A stable identity for de-duplicating the same marker repeated within one session. */
export function markerKey(marker: Marker): string {
  return JSON.stringify(marker);
}

function toMarker(kind: MarkerKind, tag: string, rawText: string, line: string): Marker {
  const reject = (reason: string): Marker => ({
    kind: 'rejected',
    markerKind: kind,
    reason,
    line: clip(stripControlCharacters(line.trim()), 200),
  });
  const text = stripControlCharacters(rawText).trim();
  if (text.length > MAX_MARKER_TEXT) {
    return reject(`text is ${text.length} characters, over the limit of ${MAX_MARKER_TEXT}`);
  }
  // A health marker needs no detail: `[HEALTH:healthy:caddy]` says it all.
  if (text.length === 0 && kind !== 'health') return reject('no text after the marker');
  const fields = tag.split(':').map((f) => f.trim());
  const first = fields[0]!;
  const second = fields[1];
  const extra = fields.length > 2;
  switch (kind) {
    case 'event': {
      if (!WORD.test(first) || extra) return reject(`bad event tag "${shown(tag)}"`);
      const svc = optionalService(second);
      if (!svc.ok) return reject(svc.reason);
      return {
        kind,
        level: normaliseLevel(first),
        levelWord: first,
        service: svc.name,
        message: text,
      };
    }
    case 'memory': {
      if (!WORD.test(first) || extra) return reject(`bad memory tag "${shown(tag)}"`);
      const svc = optionalService(second);
      if (!svc.ok) return reject(svc.reason);
      return { kind, category: first.toLowerCase(), service: svc.name, observation: text };
    }
    case 'cooldown': {
      const act = first.toLowerCase();
      if ((act !== 'restart' && act !== 'redeployment') || extra) {
        return reject(`cooldown action must be restart or redeployment, got "${shown(first)}"`);
      }
      const svc = checkServiceName(second ?? '');
      if (!svc.ok) return reject(`service name ${svc.reason}`);
      const outcome = COOLDOWN_TEXT.exec(text);
      if (!outcome) return reject('cooldown text must start with success or failure');
      return {
        kind,
        action: act,
        service: svc.name,
        success: outcome[1]!.toLowerCase() === 'success',
        message: outcome[2]!.trim(),
      };
    }
    case 'service': {
      const svc = checkServiceName(first);
      if (!svc.ok || second !== undefined)
        return reject(`service name ${svc.ok ? 'has an extra field' : svc.reason}`);
      if (text.length > MAX_SERVICE_DESCRIPTION) {
        return reject(
          `description is ${text.length} characters, over the limit of ${MAX_SERVICE_DESCRIPTION}`,
        );
      }
      return { kind, service: svc.name, description: text };
    }
    case 'health': {
      const health = normaliseHealth(first);
      if (!health || extra) return reject(`bad health tag "${shown(tag)}"`);
      const svc = checkServiceName(second ?? '');
      if (!svc.ok) return reject(`service name ${svc.reason}`);
      return { kind, health, service: svc.name, detail: text === '' ? null : text };
    }
    case 'escalate': {
      const tier = ESCALATE_TIER.exec(tag.trim());
      if (!tier) return reject(`bad escalation tier "${shown(tag)}"`);
      return { kind, tier: Number(tier[1]), reason: text };
    }
  }
}

/** No service (absent or empty) is null; a bad or over-long name is refused with the reason. */
function optionalService(
  service: string | undefined,
): { ok: true; name: string | null } | { ok: false; reason: string } {
  if (service === undefined || service === '') return { ok: true, name: null };
  const checked = checkServiceName(service);
  return checked.ok ? checked : { ok: false, reason: `service name ${checked.reason}` };
}

function shown(text: string): string {
  return clip(stripControlCharacters(text), 60);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
