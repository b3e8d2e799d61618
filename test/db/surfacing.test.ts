/**
 * Which memories a session was given, on both engines: a block is recorded in the order given,
 * with each memory's score and why; a memory given again to the same session is not counted
 * twice; a surfacing with no session (a search) counts every memory once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { seedMemory, type TestApp, testApp } from '../helpers/db.js';

let h: TestApp;
beforeEach(() => {
  h = testApp();
});
afterEach(() => h.close());

const memory = (observation: string) =>
  seedMemory(h, { service: 'nas', category: 'behavior', observation }).id;
const counts = (...ids: number[]) => ids.map((id) => h.stores.memories.get(id)!.surfaceCount);

describe("a session's surfaced memories", () => {
  it('are recorded in order with their scores and reasons, each counted once per session', async () => {
    const [a, b, c] = [memory('fan is loud'), memory('scrub on sundays'), memory('disk is full')];
    const session = h.stores.sessions.start({
      trigger: 'scheduled',
      tier: 1,
      model: 'haiku',
      startedAt: h.clock.now(),
    });
    const at = h.clock.now();
    await h.stores.surfacing.record(
      session,
      [
        { memoryId: b!, score: 0.9, detail: { reason: 'pinned' } },
        { memoryId: a!, score: null },
      ],
      'context',
      at,
    );
    // The hook gives one again and one new: only the new one counts.
    await h.stores.surfacing.record(
      session,
      [
        { memoryId: a!, score: 0.5 },
        { memoryId: c!, score: 0.4, detail: { why: ['bm25'] } },
      ],
      'hook',
      at + 1,
    );
    expect(
      (await h.stores.surfacing.forSession(session)).map((r) => [
        r.memoryId,
        r.via,
        r.score,
        r.detail,
      ]),
    ).toEqual([
      [b, 'context', 0.9, { reason: 'pinned' }],
      [a, 'context', null, null],
      [c, 'hook', 0.4, { why: ['bm25'] }],
    ]);
    expect(counts(a!, b!, c!)).toEqual([1, 1, 1]);
    expect(h.stores.memories.get(c!)!.lastSurfacedAt).toBe(at + 1);

    // Without a session (a search), every memory given is counted.
    await h.stores.surfacing.record(
      null,
      [
        { memoryId: a!, score: 1 },
        { memoryId: c!, score: 1 },
      ],
      'hook',
      at + 2,
    );
    expect(counts(a!, b!, c!)).toEqual([2, 1, 2]);
  });
});
