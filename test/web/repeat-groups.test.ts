import { describe, expect, it } from 'vitest';

import type { ActivityItem } from '../../src/db/index.js';
import { activityFeed } from '../../src/web/overview-data.js';
import { groupRepeats } from '../../src/web/repeat-groups.js';

const MIN = 60_000;

function event(
  id: number,
  at: number,
  message: string,
  service: string | null = 'nas',
): ActivityItem {
  return {
    kind: 'event',
    at,
    id,
    sessionId: null,
    source: 'agent',
    level: 'warning',
    instance: 'local',
    service,
    message,
  };
}

describe('groupRepeats', () => {
  it('folds equal keys into the newest item, counting them with first and last seen', () => {
    const items = [
      { at: 50, k: 'a' },
      { at: 40, k: 'b' },
      { at: 30, k: 'a' },
      { at: 10, k: 'a' },
    ];
    expect(
      groupRepeats(
        items,
        (i) => i.k,
        (i) => i.at,
      ),
    ).toEqual([
      { item: { at: 50, k: 'a' }, count: 3, firstAt: 10, lastAt: 50 },
      { item: { at: 40, k: 'b' }, count: 1, firstAt: 40, lastAt: 40 },
    ]);
  });

  it('never folds items without a key', () => {
    const items = [{ at: 2 }, { at: 1 }];
    expect(
      groupRepeats(
        items,
        () => null,
        (i) => i.at,
      ).map((g) => g.count),
    ).toEqual([1, 1]);
  });
});

describe('activityFeed', () => {
  it('folds events of one service and message, not sessions, and cuts to the limit', () => {
    const items: ActivityItem[] = [
      ...Array.from({ length: 12 }, (_, i) => event(100 + i, (60 - i * 5) * MIN, 'disk 91% full')),
      event(90, 3 * MIN, 'disk 91% full', 'web'),
      {
        kind: 'session',
        at: 2 * MIN,
        id: 7,
        status: 'completed',
        trigger: 'scheduled',
        tier: 1,
        parentSessionId: null,
      },
      {
        kind: 'session',
        at: 1 * MIN,
        id: 6,
        status: 'completed',
        trigger: 'scheduled',
        tier: 1,
        parentSessionId: null,
      },
    ];
    const feed = activityFeed(items, 3);
    expect(feed.map((g) => [g.item.kind, g.count])).toEqual([
      ['event', 12],
      ['event', 1],
      ['session', 1],
    ]);
    expect(feed[0]).toMatchObject({ firstAt: 5 * MIN, lastAt: 60 * MIN });
  });
});
