/** Awaited work per key: the same key's calls one after another in call order, others at once. */
import { describe, expect, it } from 'vitest';

import { keyedQueue } from '../../src/db/keyed-queue.js';

/** A promise and what settles it, for steps the test releases itself. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('a keyed queue', () => {
  it('runs calls sharing a key one after another, in call order, and others meanwhile', async () => {
    const inTurn = keyedQueue<number>();
    const order: string[] = [];
    const first = gate();
    const a = inTurn([1, 2], async () => {
      order.push('a starts');
      await first.opened;
      order.push('a ends');
    });
    const b = inTurn([2], async () => void order.push('b'));
    const c = inTurn([3], async () => void order.push('c'));
    const d = inTurn([1], async () => void order.push('d'));
    await c;
    expect(order).toEqual(['a starts', 'c']);
    first.open();
    await Promise.all([a, b, d]);
    expect(order).toEqual(['a starts', 'c', 'a ends', 'b', 'd']);
  });

  it('goes on after a call that failed', async () => {
    const inTurn = keyedQueue<string>();
    const failed = inTurn(['m'], async () => {
      throw new Error('boom');
    });
    const next = inTurn(['m'], async () => 'ran');
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('ran');
  });
});
