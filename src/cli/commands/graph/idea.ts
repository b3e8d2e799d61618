/** `watchkeeper graph idea ID`: one idea with its source, topic, entities and relations. */
import { day, ideaViewJson, sessionLabel, viaText } from '../../../graph/index.js';
import { flag, parse, toInt, usageError } from '../../args.js';
import { clip, json } from '../../format.js';
import type { CliIo } from '../../io.js';
import { openGraph } from './open.js';

export async function ideaCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { json: { type: 'boolean' } }, 1);
  if (p.positionals[0] === undefined) throw usageError('graph idea needs an idea id');
  const id = toInt('idea id', p.positionals[0], 1, Number.MAX_SAFE_INTEGER);
  const { app, graph } = openGraph(io);
  try {
    const v = await graph.views.idea(id);
    if (flag(p, 'json')) {
      io.stdout(json(ideaViewJson(v)));
      return 0;
    }
    const i = v.idea;
    const lines = [
      `#${i.id} ${i.intent} (confidence ${i.confidence.toFixed(2)}${i.intent === 'question' ? (i.answered ? ', answered' : ', open') : ''}), said by the ${i.role} on ${day(i.createdAt)}`,
      `  ${i.content}`,
      `  from ${i.sourceFile}:${i.sourceLine} (${sessionLabel(v.session, i.session)})`,
    ];
    if (v.span) {
      lines.push(`  topic: ${v.topic ? `${v.topic.name} > ` : ''}${v.span.name} (#${v.span.id})`);
    }
    if (v.entities.length > 0) {
      lines.push(`  entities: ${v.entities.map((e) => `${e.name} (${e.type})`).join(', ')}`);
    }
    for (const r of v.related) {
      const text = viaText({ from: r.other.id, relation: r.relation.type, direction: r.direction });
      lines.push(`  ${text}: ${clip(r.other.content, 100)} (${day(r.other.createdAt)})`);
    }
    io.stdout(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await app.close();
  }
}
