import { describe, expect, it } from 'vitest';

import { mostSimilar, textSimilarity } from '../../src/memory/similarity.js';

describe('textSimilarity', () => {
  it('scores rewordings of the same observation high and different observations low', () => {
    expect(
      textSimilarity('Takes 60s to start after restart', 'takes 60s to start after a restart'),
    ).toBe(1);
    expect(
      textSimilarity('Takes 60s to start after restart', 'Starting takes 60s after restarts'),
    ).toBeGreaterThanOrEqual(0.5);
    expect(
      textSimilarity('Takes 60s to start after restart', 'Needs the NFS mount before it starts'),
    ).toBeLessThan(0.5);
  });

  it('picks the most similar candidate above the threshold, or none', () => {
    const pool = [
      { id: 1, observation: 'Web UI slow on first load after restart' },
      { id: 2, observation: 'Takes 60s to start after restart' },
    ];
    expect(mostSimilar(pool, 'takes about 60s to start after restart', 0.5)?.candidate.id).toBe(2);
    expect(mostSimilar(pool, 'Transcoding fails for HEVC files', 0.5)).toBeNull();
  });
});
