/**
 * serve's background indexing queue: one file at a time, a file asked for again while it waits
 * asked for once (with the newer turn's end), one asked for while it is indexed read once more,
 * and a failure reported without stopping the files after it.
 */
import { describe, expect, it } from 'vitest';

import { createDatabaseOutage } from '../../src/db/index.js';
import { AppError } from '../../src/errors.js';
import { createIndexQueue, type IndexOptions } from '../../src/graph/index.js';

function recorder() {
  const calls: { file: string; untilText: string | undefined }[] = [];
  const errors: string[] = [];
  let active = 0;
  let most = 0;
  const gates: (() => void)[] = [];
  const queue = createIndexQueue({
    async index(file: string, opts: IndexOptions) {
      active += 1;
      most = Math.max(most, active);
      calls.push({ file, untilText: opts.untilText });
      // Each job waits until the test lets it finish.
      await new Promise<void>((r) => gates.push(r));
      active -= 1;
      if (file.endsWith('bad.jsonl')) throw new Error('unreadable');
      return { status: 'indexed' } as never;
    },
    embedPending: () => Promise.resolve(0),
    onError: (file, err) => errors.push(`${file}: ${err.message}`),
  });
  const finishNext = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { queue, calls, errors, finishNext, most: () => most };
}

describe('the background indexing queue', () => {
  it('indexes one file at a time and asks for a waiting file once, with the newer turn', async () => {
    const r = recorder();
    expect(r.queue.enqueue('/t/a.jsonl', { untilText: 'turn 1' })).toBe('queued');
    // a.jsonl is being indexed: asked again, it waits to be read once more.
    expect(r.queue.enqueue('/t/a.jsonl', { untilText: 'turn 2' })).toBe('queued');
    expect(r.queue.enqueue('/t/b.jsonl')).toBe('queued');
    expect(r.queue.enqueue('/t/a.jsonl', { untilText: 'turn 3' })).toBe('already_queued');
    for (let i = 0; i < 3; i += 1) await r.finishNext();
    await r.queue.idle();
    expect(r.calls).toEqual([
      { file: '/t/a.jsonl', untilText: 'turn 1' },
      { file: '/t/a.jsonl', untilText: 'turn 3' },
      { file: '/t/b.jsonl', untilText: undefined },
    ]);
    expect(r.most()).toBe(1);
  });

  it('reports a failed file and goes on with the next', async () => {
    const r = recorder();
    r.queue.enqueue('/t/bad.jsonl');
    r.queue.enqueue('/t/good.jsonl');
    await r.finishNext();
    await r.finishNext();
    await r.queue.idle();
    expect(r.errors).toEqual(['/t/bad.jsonl: unreadable']);
    expect(r.calls.map((c) => c.file)).toEqual(['/t/bad.jsonl', '/t/good.jsonl']);
  });

  it('takes nothing more once closed, and waits for the file being indexed', async () => {
    const r = recorder();
    r.queue.enqueue('/t/a.jsonl');
    r.queue.enqueue('/t/b.jsonl');
    const closing = r.queue.close();
    r.queue.enqueue('/t/c.jsonl');
    await r.finishNext();
    await closing;
    expect(r.calls.map((c) => c.file)).toEqual(['/t/a.jsonl']);
  });

  it('keeps a file the lost database cut short, and indexes it once the database answers', async () => {
    let reachable = false;
    const calls: string[] = [];
    const errors: string[] = [];
    const outage = createDatabaseOutage({
      probe: () => Promise.resolve(reachable),
      clock: { now: () => Date.now() },
    });
    const queue = createIndexQueue({
      index(file: string) {
        calls.push(file);
        if (!reachable) throw new AppError('db_unavailable', 'PostgreSQL is unreachable');
        return Promise.resolve({ status: 'indexed' } as never);
      },
      embedPending: () => Promise.resolve(0),
      onError: (file, err) => errors.push(`${file}: ${err.message}`),
      outage,
    });
    queue.enqueue('/t/a.jsonl');
    queue.enqueue('/t/b.jsonl');
    while (!outage.down) await new Promise((r) => setImmediate(r));
    // Queued again, first, and nothing more is tried while the database is away.
    expect(queue.waiting).toBe(2);
    reachable = true;
    await queue.idle();
    expect(calls).toEqual(['/t/a.jsonl', '/t/a.jsonl', '/t/b.jsonl']);
    expect(errors).toEqual([]);
    expect(outage.down).toBe(false);
  });
});
