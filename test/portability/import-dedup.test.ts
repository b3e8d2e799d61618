/**
 * An import dedups by meaning with the real local model: a record that says in other words
 * what an active memory says reinforces it, and the vectors of the memories it creates are
 * stored, so nothing waits for the background embedding.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { createPortability, textLines } from '../../src/portability/index.js';
import { type KnowledgeApp, knowledgeApp, localEmbedder } from '../helpers/knowledge.js';

let app: KnowledgeApp;
afterEach(() => app?.close());

const file = (...texts: string[]) =>
  [
    JSON.stringify({ format: 'watchkeeper-memory/1', memories: texts.length }),
    ...texts.map((text, i) =>
      JSON.stringify({
        type: 'memory',
        id: i + 1,
        text,
        service: 'jellyfin',
        category: 'behavior',
        confidence: 0.7,
        created_at: `2025-12-0${i + 1}T08:00:00.000Z`,
      }),
    ),
  ].join('\n');

describe('import with the local model', () => {
  it('reinforces a memory that says the same in other words, and creates the rest embedded', async () => {
    app = knowledgeApp(localEmbedder());
    const existing = await app.keeper.observe({
      service: 'jellyfin',
      category: 'behavior',
      observation: 'transcoding stalls when the cache disk is full',
      sessionId: null,
      tier: 1,
    });
    const portability = createPortability({ ...app, clock: app.clock });
    const text = file(
      'when the cache volume fills up, transcoding stops',
      'the web UI logs users out after a server update',
    );
    const dry = await portability.importMemories(textLines(text), { dryRun: true });
    expect(dry.counts).toEqual({ created: 1, reinforced: 1, skipped: 0, refused: 0 });
    expect(await app.stores.memories.count({ status: 'all' })).toBe(1);

    const report = await portability.importMemories(textLines(text));
    expect(report.items.map((i) => [i.line, i.action, i.memoryId === existing.memory.id])).toEqual([
      [2, 'reinforced', true],
      [3, 'created', false],
    ]);
    expect(report.items[0]!.why).toMatch(/^says what memory #\d+ says \(cosine 0\.\d\d\)$/);
    expect(app.stores.memories.get(existing.memory.id)!.confidence).toBe(0.8);
    expect(await app.stores.search.pending(app.knowledge.embedding.model!, 0, 10)).toEqual([]);
    const again = await portability.importMemories(textLines(text));
    expect(again.counts).toEqual({ created: 0, reinforced: 0, skipped: 2, refused: 0 });
  }, 120_000);
});
