/**
 * The pages' cache of what they read and render: kept until the database changes, and one read
 * shared by the requests that ask for it while it runs (a session writing markers would otherwise
 * send every waiting dashboard request to the database after each write).
 */
import { describe, expect, it } from 'vitest';

import { versionCache } from '../../src/web/version-cache.js';

/** A read the test ends by hand, counting how many were started. */
function reads() {
  const started: { key: string; finish: (v: string) => void; fail: (e: Error) => void }[] = [];
  const read = (key: string) => () =>
    new Promise<string>((finish, fail) => started.push({ key, finish, fail }));
  return { started, read };
}

describe('versionCache', () => {
  it('gives the requests that ask while a read runs that one read', async () => {
    const cache = versionCache<string>(() => 'v1', 10);
    const { started, read } = reads();
    const answers = Promise.all([
      cache('a', read('a')),
      cache('a', read('a')),
      cache('a', read('a')),
    ]);
    expect(started).toHaveLength(1);
    started[0]!.finish('table a');
    expect(await answers).toEqual(['table a', 'table a', 'table a']);
    // Nothing changed since: kept.
    expect(await cache('a', read('a'))).toBe('table a');
    expect(started).toHaveLength(1);
  });

  it('reads again once the database changed, and keeps each key apart', async () => {
    let version = 'v1';
    const cache = versionCache<string>(() => version, 10);
    let n = 0;
    const read = (key: string) => async () => `${key} read ${++n}`;
    expect(await cache('a', read('a'))).toBe('a read 1');
    expect(await cache('b', read('b'))).toBe('b read 2');
    expect(await cache('a', read('a'))).toBe('a read 1');
    version = 'v2';
    expect(await cache('a', read('a'))).toBe('a read 3');
    expect(await cache('b', read('b'))).toBe('b read 4');
  });

  it('forgets a read that failed, so that the next request reads again', async () => {
    const cache = versionCache<string>(() => 'v1', 10);
    const { started, read } = reads();
    const first = cache('a', read('a'));
    started[0]!.fail(new Error('database unreachable'));
    await expect(first).rejects.toThrow('database unreachable');
    const second = cache('a', read('a'));
    expect(started).toHaveLength(2);
    started[1]!.finish('table a');
    expect(await second).toBe('table a');
  });

  it('holds at most `size` keys, dropping the oldest', async () => {
    const cache = versionCache<string>(() => 'v1', 2);
    let n = 0;
    const read = () => async () => `read ${++n}`;
    await cache('a', read());
    await cache('b', read());
    await cache('c', read());
    expect(await cache('b', read())).toBe('read 2');
    expect(await cache('a', read())).toBe('read 4');
  });
});
