/** `watchkeeper graph topics`: a session's topics and sub-spans as an indented tree (or JSON). */
import { sessionViewJson, type TopicNode } from '../../../graph/index.js';
import { flag, parse, str, toInt } from '../../args.js';
import { clip, json, shortTime } from '../../format.js';
import type { CliIo } from '../../io.js';
import { openGraph } from './open.js';

function topicLines(nodes: TopicNode[], indent: string): string[] {
  return nodes.flatMap((n) => [
    `${indent}#${n.span.id}  lines ${n.span.startLine}-${n.span.endLine ?? '…'}  ${clip(n.span.name, 60)}  (${n.ideaCount} ideas)`,
    ...topicLines(n.children, `${indent}  `),
  ]);
}

export async function topicsCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { json: { type: 'boolean' }, limit: { type: 'string' } }, 1);
  const { app, graph } = openGraph(io);
  try {
    const label = p.positionals[0];
    const sessions = label
      ? [await graph.views.resolveSession(label)]
      : await graph.stores.sources.list({
          limit: toInt('--limit', str(p, 'limit') ?? '20', 1, 10_000),
        });
    const views = await Promise.all(sessions.map((s) => graph.views.sessionOf(s)));
    if (flag(p, 'json')) {
      io.stdout(json(label ? sessionViewJson(views[0]!) : views.map(sessionViewJson)));
      return 0;
    }
    if (views.length === 0) {
      io.stdout('nothing indexed yet: run `watchkeeper graph index --all`\n');
      return 0;
    }
    for (const v of views) {
      const s = v.session;
      io.stdout(
        `${s.session}  ${s.kind}${s.project ? `, ${s.project}` : ''}${s.title ? `, "${clip(s.title, 60)}"` : ''}  ${shortTime(s.firstAt)} .. ${shortTime(s.lastAt)}\n`,
      );
      io.stdout(`${topicLines(v.topics, '  ').join('\n')}\n`);
    }
    return 0;
  } finally {
    await app.close();
  }
}
