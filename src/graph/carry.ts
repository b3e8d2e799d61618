/**
 * What one indexing run hands the next for the same file (index_state.carry_json): the topic
 * tracker's state (open spans and the recent window), the questions of the last user turn (so
 * that a reply appended later still answers them) and the last turns (whose ideas are also found
 * by the words said right after them).
 */
import { emptyTopicState, type TopicState } from './topics.js';

export interface RecentTurn {
  /** The turn's text (clipped): the words around the ideas of the turns next to it. */
  text: string;
  ideaIds: number[];
}

export interface Carry {
  topics: TopicState;
  /** Question ideas of the last user turn, answered by the model's next reply. */
  openQuestions: number[];
  /** The last two turns with ideas, oldest first: a turn said next is part of their context. */
  recent: RecentTurn[];
}

export function emptyCarry(): Carry {
  return { topics: emptyTopicState(), openQuestions: [], recent: [] };
}

/** The stored carry-over, or a fresh one when there is none or it cannot be read. */
export function readCarry(json: string | null): Carry {
  if (!json) return emptyCarry();
  try {
    const value = JSON.parse(json) as Partial<Carry>;
    if (!value.topics || !Array.isArray(value.topics.window)) return emptyCarry();
    return {
      topics: value.topics,
      openQuestions: value.openQuestions ?? [],
      recent: value.recent ?? [],
    };
  } catch {
    return emptyCarry();
  }
}
