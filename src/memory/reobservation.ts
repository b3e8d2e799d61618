/**
 * What the rules make of a re-observation: a text observed for a service, beside the active
 * memory of that service closest to it. The same fact (reinforce it), a change of that fact
 * (supersede it), apart (a fact of its own), or unsure: close in meaning, short of the same,
 * and no value or change the rules read (where a model is configured, it decides; otherwise it
 * stays apart). Observing (knowledge/memory/observe.ts) and an import's judgement (judge.ts)
 * both decide by this one rule.
 */
import { compareFacts, type Contradiction } from './contradiction.js';
import { sameValues } from './facts.js';

/** How close the texts must be for each reading (cosine or lexical, per measure). */
export interface ReobservationBars {
  /** At or above: the same fact on closeness alone. */
  duplicate: number;
  /** At or above: the same topic, where a model may decide what the rules cannot. */
  related: number;
  /** At or above: the same fact when every value of each is one the other states. */
  agreeing: number;
  /** At or above: a change of the fact when the rules read one (another value, "moved off"). */
  changing: number;
}

export type Reobservation =
  | { kind: 'same' }
  | { kind: 'changes'; contradiction: Contradiction }
  | { kind: 'unsure' }
  | { kind: 'apart' };

export function readReobservation(
  old: string,
  text: string,
  similarity: number,
  bars: ReobservationBars,
): Reobservation {
  if (similarity < Math.min(bars.related, bars.agreeing, bars.changing)) return { kind: 'apart' };
  // A value of another thing ("a resilver takes two days" beside "a scrub takes nine hours")
  // is a fact of its own, however close the words: neither the same fact nor its change.
  const { otherSubject, contradiction } = compareFacts(old, text);
  if (otherSubject) return { kind: 'apart' };
  if (contradiction && similarity >= bars.changing) return { kind: 'changes', contradiction };
  if (similarity >= bars.duplicate) return { kind: 'same' };
  // Close, short of a duplicate, and stating the same values ("60 s", "a minute"): the same
  // fact in other words.
  if (similarity >= bars.agreeing && sameValues(old, text)) return { kind: 'same' };
  return similarity >= bars.related ? { kind: 'unsure' } : { kind: 'apart' };
}
