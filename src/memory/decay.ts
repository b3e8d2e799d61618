/**
 * Staleness decay, computed from the time of the last reinforcement or edit rather than
 * subtracted per run: running it once a minute or once a week gives the same confidence.
 */
import { WEEK_MS } from '../clock.js';
import { type MemoryPolicy, roundConfidence } from './policy.js';

export interface DecayState {
  confidence: number;
  /** Confidence as of `lastReinforcedAt`; decay is measured from here. */
  baseConfidence: number;
  lastReinforcedAt: number;
  active: boolean;
  pinned: boolean;
}

export interface DecayOutcome {
  confidence: number;
  active: boolean;
  /** True when confidence or active differs from the input. */
  changed: boolean;
}

/** Whole weeks past the grace period at `now` (0 inside the grace period). */
export function weeksPastGrace(
  lastReinforcedAt: number,
  now: number,
  policy: MemoryPolicy,
): number {
  const past = now - lastReinforcedAt - policy.graceMs;
  return past <= 0 ? 0 : Math.floor(past / WEEK_MS);
}

/** The decayed state at `now`. Pinned and inactive memories never change. */
export function applyDecay(memory: DecayState, now: number, policy: MemoryPolicy): DecayOutcome {
  if (memory.pinned || !memory.active) {
    return { confidence: memory.confidence, active: memory.active, changed: false };
  }
  const weeks = weeksPastGrace(memory.lastReinforcedAt, now, policy);
  // Decay stops at the first step below the threshold (the memory is inactive from then on),
  // so a late run and many punctual runs agree on where it stopped.
  const stepsToInactive =
    Math.floor((memory.baseConfidence - policy.activeThreshold) / policy.decayPerWeek + 1e-9) + 1;
  const steps = Math.min(weeks, Math.max(0, stepsToInactive));
  const decayed = roundConfidence(memory.baseConfidence - steps * policy.decayPerWeek);
  // Decay only lowers: an operator's edit that raised confidence resets the base anyway.
  const confidence = Math.min(memory.confidence, decayed);
  const active = confidence >= policy.activeThreshold;
  return { confidence, active, changed: confidence !== memory.confidence || !active };
}

/** When the next weekly decay step after `now` falls due for a memory last reinforced then. */
export function nextDecayAt(lastReinforcedAt: number, now: number, policy: MemoryPolicy): number {
  return (
    lastReinforcedAt +
    policy.graceMs +
    (weeksPastGrace(lastReinforcedAt, now, policy) + 1) * WEEK_MS
  );
}
