/** `watchkeeper graph stats`: what the memory graph holds, as a table (or JSON). */
import { countsJson } from '../../../graph/index.js';
import { flag, parse } from '../../args.js';
import { json, shortTime, table } from '../../format.js';
import type { CliIo } from '../../io.js';
import { openGraph } from './open.js';

export async function statsCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { json: { type: 'boolean' } });
  const { app, graph } = openGraph(io);
  try {
    const c = await graph.stats();
    if (flag(p, 'json')) {
      io.stdout(json(countsJson(c)));
      return 0;
    }
    io.stdout(
      table(
        ['WHAT', 'COUNT'],
        [
          ['sessions', String(c.sessions)],
          ['files', String(c.files)],
          ['topics', String(c.topics)],
          ['spans (with sub-spans)', String(c.spans)],
          ['ideas', String(c.ideas)],
          ...Object.entries(c.byIntent).map(([k, n]) => [`  ${k}`, String(n)]),
          ['open questions', String(c.openQuestions)],
          ['entities', String(c.entities)],
          ['relations', String(c.relations)],
          ...Object.entries(c.byRelation).map(([k, n]) => [`  ${k}`, String(n)]),
          ['last indexed (UTC)', shortTime(c.lastIndexed)],
        ],
      ),
    );
    return 0;
  } finally {
    await app.close();
  }
}
