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
  const decayed = roundConfidence(memory.baseConfidence - weeks * policy.decayPerWeek);
  // Decay only lowers: an operator's edit that raised confidence resets the base anyway.
  const confidence = Math.min(memory.confidence, decayed);
  const active = confidence >= policy.activeThreshold;
  return { confidence, active, changed: confidence !== memory.confidence || !active };
}

/** The earliest `lastReinforcedAt` that can have decayed at `now`; older rows are candidates. */
export function decayCutoff(now: number, policy: MemoryPolicy): number {
  return now - policy.graceMs - WEEK_MS;
}
