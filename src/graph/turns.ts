/**
 * A turn: what one transcript line says that the graph may learn from. Only the user's prompt and
 * the model's own text become ideas; what a tool printed (attacker-controlled, like the markers'
 * poisoning rule says) is kept as short context for topic detection and nothing else.
 */
import { queryWords } from '../memory/index.js';

export type TurnRole = 'user' | 'assistant' | 'tool';

export interface Turn {
  /** 1-based line of the source file. */
  line: number;
  role: TurnRole;
  text: string;
  /** When it was said (epoch ms), when the transcript says. */
  at: number | null;
}

/** What a line says about its conversation (any of it may be missing). */
export interface LineMeta {
  session?: string;
  project?: string;
  title?: string;
  at?: number;
}

export interface ParsedLine {
  turns: Turn[];
  meta: LineMeta;
}

/** Tool output kept as context: this many characters at most. */
export const TOOL_CONTEXT_CHARS = 200;

const ACKNOWLEDGEMENT =
  /^(?:hi|hello|hey|thanks?|thank you|thx|ok(?:ay)?|sure|great|cool|nice|perfect|yes|yep|yeah|no|nope|done|got it|sounds good|lgtm|looks good|alright|right|understood|will do|good|awesome|continue|go ahead|go on|please do)(?:[\s,]+(?:so much|a lot|again|then|there|thanks|thank you|please|mate|man))*[\s.!,:)]*$/i;
/** The model narrating its next tool call ("Let me check the logs."), not saying anything. */
const TOOL_CHATTER =
  /^(?:let me|let's|i'll|i will|i'm going to|now i'll|now let me|first,? let me|next,? let me|running|checking|looking at|reading|searching)\b/i;

/**
 * Low-value turns (seed 004 section 4.2): greetings, acknowledgements and bare tool chatter say
 * nothing worth remembering and would only blur the topic windows.
 */
export function isLowValue(turn: Turn): boolean {
  if (turn.role === 'tool') return false;
  const text = turn.text.trim();
  if (text.length === 0) return true;
  if (ACKNOWLEDGEMENT.test(text)) return true;
  const words = queryWords(text, 64).length;
  if (words < 2) return true;
  // "Let me check the logs." is narration; a longer turn that starts so may still decide things.
  return TOOL_CHATTER.test(text) && words <= 8 && !/[?]/.test(text);
}

/** Epoch ms of an ISO timestamp, or undefined. */
export function isoToMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** One line of context for a tool call or its output: clipped, on one line. */
export function toolContext(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > TOOL_CONTEXT_CHARS ? `${flat.slice(0, TOOL_CONTEXT_CHARS)}…` : flat;
}
