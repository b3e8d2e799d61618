import { describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import { applyDecay, type DecayState } from '../../src/memory/decay.js';
import { DEFAULT_POLICY } from '../../src/memory/policy.js';

const NOW = Date.UTC(2026, 5, 1);
const memory = (daysAgo: number, over: Partial<DecayState> = {}): DecayState => ({
  confidence: 0.7,
  baseConfidence: 0.7,
  lastReinforcedAt: NOW - daysAgo * DAY_MS,
  active: true,
  pinned: false,
  ...over,
});
const decay = (m: DecayState, now = NOW) => applyDecay(m, now, DEFAULT_POLICY);

describe('applyDecay', () => {
  it('leaves a memory alone for the 30-day grace period and the first week past it', () => {
    expect(decay(memory(30))).toEqual({ confidence: 0.7, active: true, changed: false });
    expect(decay(memory(36))).toEqual({ confidence: 0.7, active: true, changed: false });
  });

  it('takes 0.1 per whole week past the grace period: 0.7 reinforced 44 days ago is 0.5', () => {
    expect(decay(memory(37))).toEqual({ confidence: 0.6, active: true, changed: true });
    expect(decay(memory(44))).toEqual({ confidence: 0.5, active: true, changed: true });
  });

  it('gives the same result when run ten times as when run once', () => {
    let m = memory(44);
    for (let i = 0; i < 10; i += 1) {
      const out = decay(m);
      m = { ...m, confidence: out.confidence, active: out.active };
    }
    expect(m.confidence).toBe(0.5);
    expect(m.active).toBe(true);
  });

  it('gives the same result run hourly over the weeks as run once at the end', () => {
    let m = memory(0);
    for (let hour = 0; hour <= 44 * 24; hour += 1) {
      const out = decay(m, m.lastReinforcedAt + hour * 3_600_000);
      m = { ...m, confidence: out.confidence, active: out.active };
    }
    expect(m.confidence).toBe(0.5);
  });

  it('never changes a pinned memory', () => {
    expect(decay(memory(400, { pinned: true }))).toEqual({
      confidence: 0.7,
      active: true,
      changed: false,
    });
  });

  it('deactivates below 0.3, but not at exactly 0.3', () => {
    expect(decay(memory(58))).toEqual({ confidence: 0.3, active: true, changed: true });
    expect(decay(memory(65))).toEqual({ confidence: 0.2, active: false, changed: true });
  });

  it('never raises confidence, and stops at the first step below 0.3 however late it runs', () => {
    expect(decay(memory(44, { confidence: 0.4 })).confidence).toBe(0.4);
    expect(decay(memory(1000))).toEqual({ confidence: 0.2, active: false, changed: true });
    expect(decay(memory(1000, { baseConfidence: 1, confidence: 1 }))).toMatchObject({
      confidence: 0.2,
      active: false,
    });
    expect(decay(memory(1000, { baseConfidence: 0.95, confidence: 0.95 }))).toMatchObject({
      confidence: 0.25,
      active: false,
    });
  });
});
