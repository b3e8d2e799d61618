/** The memory lifecycle's numbers, from seed 003, in one place. */
import { DAY_MS } from '../clock.js';

export const CATEGORIES = [
  'timing',
  'dependency',
  'behavior',
  'remediation',
  'maintenance',
] as const;
export type Category = (typeof CATEGORIES)[number];

export function isCategory(value: string): value is Category {
  return (CATEGORIES as readonly string[]).includes(value);
}

export interface MemoryPolicy {
  /** Confidence of a newly observed memory. */
  newConfidence: number;
  /** Added on each reinforcement, capped at 1.0. */
  reinforceStep: number;
  /** No decay for this long after the last reinforcement or edit. */
  graceMs: number;
  /** Taken off per whole week past the grace period. */
  decayPerWeek: number;
  /** A memory whose confidence falls below this becomes inactive. */
  activeThreshold: number;
  /** Lexical similarity (0..1) at or above which an observation reinforces an existing memory. */
  similarityThreshold: number;
}

export const DEFAULT_POLICY: MemoryPolicy = {
  newConfidence: 0.7,
  reinforceStep: 0.1,
  graceMs: 30 * DAY_MS,
  decayPerWeek: 0.1,
  activeThreshold: 0.3,
  similarityThreshold: 0.5,
};

/** Confidence is kept to 4 decimals so that 0.7 - 0.2 is 0.5, not 0.49999999999999994. */
export function roundConfidence(value: number): number {
  const clamped = Math.min(1, Math.max(0, value));
  return Math.round(clamped * 10_000) / 10_000;
}

/** `0.9`, `0.85`, `1.0`: the form used in the prompt block and the CLI. */
export function formatConfidence(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return Number.isInteger(rounded) ? rounded.toFixed(1) : String(rounded);
}
