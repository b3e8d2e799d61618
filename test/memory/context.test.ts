import { describe, expect, it } from 'vitest';

import {
  assembleContext,
  type ContextGroup,
  type ContextMemory,
} from '../../src/memory/context.js';
import { estimateTokens } from '../../src/memory/tokens.js';

let id = 0;
const mem = (
  service: string | null,
  category: string,
  observation: string,
  confidence: number,
): ContextMemory => ({
  id: ++id,
  service,
  category,
  observation,
  confidence,
});

describe('assembleContext', () => {
  it('renders the seed 003 format exactly: grouped by service, general last', () => {
    const groups: ContextGroup[] = [
      {
        service: null,
        memories: [
          mem(null, 'remediation', 'DNS checks fail transiently during WireGuard reconnects', 0.95),
        ],
      },
      {
        service: 'jellyfin',
        memories: [
          mem(
            'jellyfin',
            'timing',
            'Takes 60s to start after restart -- wait before checking health',
            0.9,
          ),
          mem('jellyfin', 'behavior', 'First restart attempt always fails due to DB lock', 0.8),
        ],
      },
      {
        service: 'postgres',
        memories: [mem('postgres', 'maintenance', 'Needs manual VACUUM FULL weekly', 1)],
      },
    ];
    const block = assembleContext(groups, 5, 2000);
    expect(block.text).toBe(
      [
        `## Operational Memory (4 of 5 memories, ~${block.estimatedTokens} tokens)`,
        '',
        '### jellyfin',
        '- [timing] Takes 60s to start after restart -- wait before checking health (confidence: 0.9)',
        '- [behavior] First restart attempt always fails due to DB lock (confidence: 0.8)',
        '',
        '### postgres',
        '- [maintenance] Needs manual VACUUM FULL weekly (confidence: 1.0)',
        '',
        '### general',
        '- [remediation] DNS checks fail transiently during WireGuard reconnects (confidence: 0.95)',
      ].join('\n'),
    );
    expect(block.estimatedTokens).toBe(estimateTokens(block.text));
  });

  it('is empty when there is nothing, when the budget is 0, and when nothing fits', () => {
    const g = [{ service: 'a', memories: [mem('a', 'timing', 'x'.repeat(400), 0.9)] }];
    expect(assembleContext([], 0, 2000).text).toBe('');
    expect(assembleContext(g, 1, 0).text).toBe('');
    expect(assembleContext(g, 1, 50).text).toBe('');
  });

  it('stays within the budget with 1,000 memories, stopping at the first line that does not fit', () => {
    const groups: ContextGroup[] = [];
    for (let s = 0; s < 50; s += 1) {
      const service = `svc-${s}`;
      groups.push({
        service,
        memories: Array.from({ length: 20 }, (_, i) =>
          mem(
            service,
            'behavior',
            `observation ${i} about ${service} `.repeat(1 + (i % 4)),
            1 - s * 0.01,
          ),
        ),
      });
    }
    for (const budget of [100, 500, 2000, 5000]) {
      const block = assembleContext(groups, 1000, budget);
      expect(estimateTokens(block.text)).toBeLessThanOrEqual(budget);
      expect(block.includedIds.length).toBeGreaterThan(0);
      expect(block.includedIds.length).toBeLessThan(1000);
      expect(block.text).toContain(`(${block.includedIds.length} of 1,000 memories`);
      // Confidence order within the block: group order is kept, and the first group comes first.
      expect(block.includedIds[0]).toBe(groups[0]!.memories[0]!.id);
    }
  });

  it('consumes groups lazily: nothing past the budget is asked for', () => {
    let asked = 0;
    function* groups(): Generator<ContextGroup> {
      for (let s = 0; s < 1000; s += 1) {
        asked += 1;
        yield { service: `s${s}`, memories: [mem(`s${s}`, 'timing', 'y'.repeat(100), 0.9)] };
      }
    }
    assembleContext(groups(), 1000, 300);
    expect(asked).toBeLessThan(20);
  });
});
