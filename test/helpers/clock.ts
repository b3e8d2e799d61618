import type { Clock } from '../../src/clock.js';

export interface FakeClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

/** A clock that moves only when told to. */
export function fakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let now = start;
  return {
    now: () => now,
    set: (ms) => {
      now = ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}
