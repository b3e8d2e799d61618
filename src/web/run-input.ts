/**
 * Starting a run from the web: the tier and prompt from a form or a JSON body, checked with errors
 * that name the field, and the hand-off to the runner. The same rules for the dashboard, the API
 * and the webhook.
 */
import { invalidField as invalid } from '../errors.js';
import { rejectControlCharacters } from '../memory/index.js';
import type { RunTicket } from '../runner/scheduler.js';
import type { Tier } from '../runner/session-runner.js';

export const MAX_PROMPT_CHARS = 20_000;

/**
 * Free text from an operator or a monitoring system: line ends as `\n` (a browser sends a
 * textarea's as CRLF), and refused, naming the field, when it holds any other control character.
 */
export function operatorText(field: string, value: string): string {
  const text = value.replace(/\r\n?/g, '\n');
  rejectControlCharacters(field, text);
  return text;
}

/** A tier from a form (text) or JSON (number); absent means 1. At most `maxTier`. */
export function parseTier(value: unknown, maxTier: Tier, field = 'tier'): Tier {
  if (value === undefined || value === null || value === '') return 1;
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (n !== 1 && n !== 2 && n !== 3) throw invalid(field, 'must be 1, 2 or 3');
  if (n > maxTier) {
    throw invalid(field, `must be at most ${maxTier}, the highest tier allowed (MAX_TIER)`);
  }
  return n;
}

/** An operator's prompt: blank means none (the tier's prompt file is used). */
export function parsePrompt(value: unknown, field = 'prompt'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(field, 'must be text');
  const prompt = operatorText(field, value).trim();
  if (prompt.length > MAX_PROMPT_CHARS) {
    const n = (x: number) => x.toLocaleString('en-US');
    throw invalid(field, `is ${n(prompt.length)} characters; the limit is ${n(MAX_PROMPT_CHARS)}`);
  }
  return prompt === '' ? null : prompt;
}

/**
 * `{tier, prompt}` from a form or a JSON body, both optional; `start_tier` is `tier` under the
 * Claude Ops API's name (refused when both are given and differ).
 */
export function parseRunInput(
  input: Record<string, unknown>,
  maxTier: Tier,
): { startTier: Tier; prompt: string | null } {
  const given = (v: unknown) => v !== undefined && v !== null && v !== '';
  const tier = given(input.tier) ? parseTier(input.tier, maxTier) : null;
  const startTier = given(input.start_tier)
    ? parseTier(input.start_tier, maxTier, 'start_tier')
    : null;
  if (tier !== null && startTier !== null && tier !== startTier) {
    throw invalid('start_tier', `is ${startTier} but tier is ${tier}: give one of them`);
  }
  return { startTier: tier ?? startTier ?? 1, prompt: parsePrompt(input.prompt) };
}

/** The ticket as the API shows it. */
export function ticketJson(ticket: RunTicket) {
  return {
    request_id: ticket.id,
    state: ticket.state,
    session_ids: [...ticket.sessionIds],
    error: ticket.error,
  };
}
