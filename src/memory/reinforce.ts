/** Reinforcement: re-observing a memory raises its confidence by one step, capped at 1.0. */
import { type MemoryPolicy, roundConfidence } from './policy.js';

export function reinforcedConfidence(current: number, policy: MemoryPolicy): number {
  return roundConfidence(Math.min(1, current + policy.reinforceStep));
}
