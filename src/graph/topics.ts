/**
 * Topic shift detection, seed 004 section 4.3 as its decisions table says (hybrid): each turn is
 * compared with the window of the turns before it in the current span. An explicit transition
 * ("let's move on to...", "back to...") or a long pause starts a new topic outright; a turn far
 * from the window in meaning is a candidate, which the model confirms (and names) when there is
 * one and the distance alone decides when there is none. A smaller distance opens a sub-span of
 * the current topic. Streaming: the window is carried over between runs, so an appended turn is
 * judged exactly as it would have been in one long run.
 */
import { HOUR_MS } from '../clock.js';
import { dot, normalise, textSimilarity } from '../memory/index.js';

export interface TopicPolicy {
  /** Turns compared against (the window). */
  window: number;
  /** A topic (or sub-span) is at least this many turns long before distance may end it. */
  minTurns: number;
  /** Below this similarity to the window: a candidate topic shift. */
  topicSimilarity: number;
  /** Below this (and above the topic's): a sub-span. */
  subSimilarity: number;
  /** A pause longer than this starts a new topic. */
  gapMs: number;
}

/** Calibrated on the local model (USE-lite): unrelated turns sit near 0.1, one topic near 0.4. */
export const VECTOR_POLICY: TopicPolicy = {
  window: 3,
  minTurns: 3,
  topicSimilarity: 0.12,
  subSimilarity: 0.22,
  gapMs: 2 * HOUR_MS,
};

/** Without embeddings: word overlap with the window (Dice over content words). */
export const LEXICAL_POLICY: TopicPolicy = {
  window: 4,
  minTurns: 4,
  topicSimilarity: 0.001,
  subSimilarity: 0.03,
  gapMs: 2 * HOUR_MS,
};

const TRANSITION =
  /^(?:(?:ok(?:ay)?|alright|right|so|now|great|thanks)[,.!]?\s+)*(?:(?:let's|let us|can we|could we)\s+(?:move on|switch|turn to|talk about|look at|get back|go back|change (?:the )?(?:topic|subject)|discuss)|moving on|switching (?:gears|topics?|to)|next topic|new topic|on another note|on a different note|unrelated(?: question)?[,:]|different (?:question|topic)|back to\b|changing (?:the )?(?:topic|subject))/i;

export interface WindowTurn {
  text: string;
  vector: number[] | null;
}

export interface OpenSpan {
  /** A stored span's id, or a negative placeholder for one this run creates. */
  id: number;
  startLine: number;
  turns: number;
  /** When it started (epoch ms). */
  at: number;
  /** A name the model gave when it confirmed the shift (kept over keyword names). */
  name: string | null;
}

/** What the tracker carries between runs (in index_state.carry_json). */
export interface TopicState {
  topic: OpenSpan | null;
  /** The open sub-span when the topic has been split; null while the topic is whole. */
  sub: OpenSpan | null;
  window: WindowTurn[];
  lastAt: number | null;
  lastLine: number;
}

export function emptyTopicState(): TopicState {
  return { topic: null, sub: null, window: [], lastAt: null, lastLine: 0 };
}

export type ShiftKind = 'topic' | 'sub' | 'none';

export interface ShiftDecision {
  kind: ShiftKind;
  reason: 'first' | 'transition' | 'pause' | 'distance' | null;
  similarity: number | null;
  /** The name the model gave the new span, if it confirmed one. */
  name: string | null;
}

export function isTransition(text: string): boolean {
  return TRANSITION.test(text.trim().slice(0, 120));
}

function windowSimilarity(
  window: readonly WindowTurn[],
  text: string,
  vector: Float32Array | null,
) {
  const vectors = window.map((w) => w.vector).filter((v): v is number[] => v !== null);
  if (vector && vectors.length === window.length && vectors.length > 0) {
    const sum = new Float32Array(vector.length);
    for (const v of vectors) for (let i = 0; i < sum.length; i += 1) sum[i]! += v[i] ?? 0;
    return dot(vector, normalise(sum));
  }
  return textSimilarity(window.map((w) => w.text).join(' '), text);
}

/** Rounded copy for the carry-over (4 decimals keep cosines to about 1e-4). */
function compact(v: Float32Array | null): number[] | null {
  return v === null ? null : Array.from(v, (x) => Math.round(x * 10_000) / 10_000);
}

/**
 * Judges one turn against the state and advances it (the caller opens and closes the spans the
 * decision implies). `confirm` is asked about a candidate found by distance only.
 */
export async function judgeTurn(
  state: TopicState,
  turn: { line: number; text: string; at: number | null; vector: Float32Array | null },
  policy: TopicPolicy,
  confirm: (
    before: readonly string[],
    after: string,
  ) => Promise<{ shift: boolean; name: string | null }>,
): Promise<ShiftDecision> {
  let decision: ShiftDecision = { kind: 'none', reason: null, similarity: null, name: null };
  if (state.topic === null) {
    decision = { kind: 'topic', reason: 'first', similarity: null, name: null };
  } else if (state.lastAt !== null && turn.at !== null && turn.at - state.lastAt > policy.gapMs) {
    decision = { kind: 'topic', reason: 'pause', similarity: null, name: null };
  } else if (isTransition(turn.text) && state.topic.turns >= 1) {
    decision = { kind: 'topic', reason: 'transition', similarity: null, name: null };
  } else if (state.window.length > 0) {
    const similarity = windowSimilarity(state.window, turn.text, turn.vector);
    const segmentTurns = (state.sub ?? state.topic).turns;
    if (state.topic.turns >= policy.minTurns && similarity < policy.topicSimilarity) {
      const verdict = await confirm(
        state.window.map((w) => w.text),
        turn.text,
      );
      decision = verdict.shift
        ? { kind: 'topic', reason: 'distance', similarity, name: verdict.name }
        : segmentTurns >= policy.minTurns
          ? { kind: 'sub', reason: 'distance', similarity, name: null }
          : { kind: 'none', reason: null, similarity, name: null };
    } else if (segmentTurns >= policy.minTurns && similarity < policy.subSimilarity) {
      decision = { kind: 'sub', reason: 'distance', similarity, name: null };
    } else {
      decision = { kind: 'none', reason: null, similarity, name: null };
    }
  }
  const entry: WindowTurn = { text: turn.text.slice(0, 600), vector: compact(turn.vector) };
  state.window =
    decision.kind === 'none' ? [...state.window, entry].slice(-policy.window) : [entry];
  if (turn.at !== null) state.lastAt = turn.at;
  state.lastLine = turn.line;
  return decision;
}
