/**
 * The memory graph of a fleet sharing one database: transcript files are on each instance's own
 * disk, so instances indexing different files each keep their own index state, and a path that
 * another instance indexed as another file (the same path on another machine) is refused rather
 * than read again over what that instance found.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

import { afterEach, expect, it } from 'vitest';

import { createGraph, type Graph } from '../../src/graph/index.js';
import { createEmbedding } from '../../src/knowledge/embedding.js';
import { fakeClock } from '../helpers/clock.js';
import { fixtureCopy } from '../helpers/graph.js';
import { sharedStores, type SharedStores } from '../helpers/shared-stores.js';

let fleet: SharedStores | undefined;
let dir: string | undefined;
afterEach(() => {
  fleet?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  fleet = undefined;
  dir = undefined;
});

function graphOf(instance: string): Graph {
  const stores = fleet!.of[instance]!;
  const clock = fakeClock();
  return createGraph({
    db: stores.db,
    embedding: createEmbedding({ embedder: null, events: stores.events, clock }),
    clock,
    dataDir: fleet!.dataDir[instance]!,
    sessions: stores.sessions,
    instance,
  });
}

const count = (sql: string) => (fleet!.of.a!.db.prepare(sql).get() as { n: number }).n;

it('keeps each instance’s files apart, and refuses a path another instance read as another file', async () => {
  fleet = sharedStores(['a', 'b']);
  const copy = fixtureCopy();
  dir = copy.dir;
  const a = graphOf('a');
  const b = graphOf('b');

  await a.index(copy.main);
  await b.index(copy.subagent);
  const ideas = count('SELECT COUNT(*) AS n FROM ideas');
  expect(ideas).toBeGreaterThan(0);
  const states = a.stores.sources.states().map((s) => [s.filePath, s.instance]);
  expect(states.sort()).toEqual(
    [
      [copy.main, 'a'],
      [copy.subagent, 'b'],
    ].sort(),
  );

  // The same path on b's disk is another file (another inode).
  const text = readFileSync(copy.main);
  renameSync(copy.main, `${copy.main}.1`);
  writeFileSync(copy.main, text);
  await expect(b.index(copy.main)).rejects.toThrow(/instance a indexed another file at this path/);
  expect(count('SELECT COUNT(*) AS n FROM ideas')).toBe(ideas);
  expect(await a.stores.sources.state(copy.main)).toMatchObject({ instance: 'a' });

  // On a's own disk a new file at the path is a rotation: read again from the start.
  const report = await a.index(copy.main);
  expect(report).toMatchObject({ reset: true, status: 'indexed' });
  expect(count('SELECT COUNT(*) AS n FROM ideas')).toBe(ideas);
});
