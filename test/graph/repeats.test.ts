/**
 * A recurring check says the same thing every run: the graph keeps each run's ideas, but recall
 * says a repeated idea once, with how often, in how many conversations, first and last; and the
 * status words and headings of its reports ("Degraded:", "Cause:", "Changed:", "Takes 60s") are
 * no entities, nor is a capitalised word said in one sentence only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { topEntities } from '../../src/graph/entity-evidence.js';
import { entitiesIn } from '../../src/graph/entities.js';
import { rememberJson } from '../../src/graph/index.js';
import { type GraphApp, graphApp, writeRuns } from '../helpers/graph.js';

let app: GraphApp | undefined;
let dir: string | undefined;
afterEach(() => {
  app?.close();
  app = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function indexedRuns(runs: number, messages?: string[]): Promise<GraphApp> {
  app = graphApp();
  dir = mkdtempSync(join(tmpdir(), 'watchkeeper-repeats-'));
  for (const file of writeRuns(dir, runs, messages)) await app.graph.index(file);
  return app;
}

describe('an idea said by every run', () => {
  it('is recalled once, with how often, where, and first and last, in text and JSON', async () => {
    const { graph, stores } = await indexedRuns(3);
    const stuck = stores.db
      .prepare("SELECT COUNT(*) AS n FROM ideas WHERE content LIKE 'The transcode queue is stuck%'")
      .get() as { n: number };
    expect(stuck.n).toBe(3);

    const answer = await graph.remember('transcode queue stuck');
    const lines = answer.text
      .split('\n')
      .filter((l) => l.startsWith('- ') && l.includes('transcode queue is stuck'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('said 3 times in 3 conversations 2026-03-01..2026-03-03');

    const ideas = rememberJson(answer).groups.flatMap((g) => g.ideas);
    const said = ideas.filter((i) => i.content.startsWith('The transcode queue is stuck'));
    expect(said).toEqual([
      expect.objectContaining({
        seen: {
          count: 3,
          sessions: 3,
          first_at: '2026-03-01T09:01:00.000Z',
          last_at: '2026-03-03T09:01:00.000Z',
        },
      }),
    ]);
    // Within one conversation the idea is that conversation's, and still says how often it was
    // said in all; the fields it had are all there.
    const one = await graph.remember('transcode queue stuck', { sessions: ['run-2'] });
    const only = rememberJson(one).groups.flatMap((g) => g.ideas)[0]!;
    expect(only).toMatchObject({ session: 'run-2', seen: { count: 3, sessions: 3 } });
    expect(Object.keys(only)).toEqual(
      expect.arrayContaining(['id', 'content', 'intent', 'score', 'via', 'entities', 'chain']),
    );
  });
});

describe('entities', () => {
  it('takes no status word or report heading for a name', () => {
    const named = entitiesIn(
      'caddy is healthy. Restart blocked by cooldown Degraded: jellyfin (slow). ' +
        'Cause: wedged worker. Ruled out: disk. Changed: restarted jellyfin. ' +
        'Healthy after a restart Takes about 60s; the check FAILED twice. We asked Alice.',
    ).map((e) => `${e.type}:${e.name}`);
    expect(named).toEqual(
      expect.arrayContaining(['technology:Caddy', 'technology:Jellyfin', 'person:Alice']),
    );
    for (const word of ['Degraded', 'Cause', 'Ruled', 'Changed', 'Takes', 'FAILED', 'Healthy']) {
      expect(named.some((n) => n.endsWith(`:${word}`))).toBe(false);
    }
  });

  it('shows a guessed name said in two different ideas, not one said in one idea by every run', async () => {
    const { graph } = await indexedRuns(4, [
      'Who looks after the media host these days?',
      'The media host is looked after by our friend Marguerite since the move.',
      'And the disk swap next weekend, who decides on that one?',
      'We should ask Marguerite before the disk swap. ' +
        'The nightly report was signed by Bartholomew without comment.',
    ]);
    const names = (await topEntities(graph.stores, 30)).map((e) => e.name);
    expect(names).toContain('Marguerite');
    // Said by every run, but in one sentence only: one guess, repeated.
    expect(names).not.toContain('Bartholomew');
  });
});
