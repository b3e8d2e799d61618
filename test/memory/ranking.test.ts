import { describe, expect, it } from 'vitest';

import { DAY_MS } from '../../src/clock.js';
import {
  hasEvidence,
  mergeCandidates,
  recencyWeight,
  scoreCandidate,
} from '../../src/memory/index.js';

describe('hybrid ranking', () => {
  it('fuses the two lists by rank and keeps every component', () => {
    const [a, b] = mergeCandidates(
      [
        { id: 1, bm25: -3 },
        { id: 2, bm25: -1 },
      ],
      [
        { id: 2, cosine: 0.7 },
        { id: 3, cosine: 0.5 },
      ],
    );
    expect(a).toEqual({
      id: 1,
      lexicalRank: 1,
      bm25: -3,
      coverage: null,
      semanticRank: null,
      cosine: null,
    });
    expect(b).toEqual({
      id: 2,
      lexicalRank: 2,
      bm25: -1,
      coverage: null,
      semanticRank: 1,
      cosine: 0.7,
    });
    const now = Date.UTC(2026, 0, 1);
    const top = scoreCandidate({
      candidate: b!,
      confidence: 1,
      lastReinforcedAt: now,
      now,
      semanticUsed: true,
    });
    const lexOnly = scoreCandidate({
      candidate: a!,
      confidence: 1,
      lastReinforcedAt: now,
      now,
      semanticUsed: true,
    });
    expect(top.score).toBeGreaterThan(lexOnly.score);
    expect(top.relevance).toBeLessThanOrEqual(1);
  });

  it('weighs recency from 1.0 under a week down to 0.5 past 90 days', () => {
    const now = 1000 * DAY_MS;
    expect(recencyWeight(now - 3 * DAY_MS, now)).toBe(1);
    expect(recencyWeight(now - 200 * DAY_MS, now)).toBe(0.5);
    const mid = recencyWeight(now - 48 * DAY_MS, now);
    expect(mid).toBeGreaterThan(0.5);
    expect(mid).toBeLessThan(1);
  });

  it('needs evidence of its own: half the query words, its service named, or a cosine at the floor', () => {
    const lex = { id: 1, lexicalRank: 1, bm25: -1, semanticRank: null, cosine: null };
    expect(hasEvidence({ ...lex, coverage: 0.25 }, 0.35)).toBe(false);
    expect(hasEvidence({ ...lex, coverage: 0.25, serviceNamed: true }, 0.35)).toBe(true);
    expect(
      hasEvidence(
        { id: 1, lexicalRank: null, bm25: null, coverage: null, semanticRank: 1, cosine: 0.2 },
        0.35,
      ),
    ).toBe(false);
    expect(
      hasEvidence(
        { id: 1, lexicalRank: null, bm25: null, coverage: null, semanticRank: 1, cosine: 0.4 },
        0.35,
      ),
    ).toBe(true);
    expect(
      hasEvidence(
        { id: 1, lexicalRank: 3, bm25: -1, coverage: 0.5, semanticRank: null, cosine: null },
        0.35,
      ),
    ).toBe(true);
  });
});
