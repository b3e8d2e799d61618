/** `watchkeeper graph remember`: recall within a token budget, as text or JSON. */
import { DEFAULT_BUDGET, rememberJson } from '../../../graph/index.js';
import { flag, parse, str, toInt, usageError } from '../../args.js';
import { json } from '../../format.js';
import type { CliIo } from '../../io.js';
import { openGraph } from './open.js';

export async function rememberCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(
    argv,
    {
      budget: { type: 'string' },
      session: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      hyde: { type: 'boolean' },
    },
    1,
  );
  const query = p.positionals[0];
  if (query === undefined || query.trim() === '') {
    throw usageError('graph remember needs a query (what to recall)');
  }
  const budget = toInt('--budget', str(p, 'budget') ?? String(DEFAULT_BUDGET), 50, 100_000);
  const { app, graph } = openGraph(io, flag(p, 'hyde'));
  try {
    const labels = (p.values.session as string[] | undefined) ?? [];
    const sessions = (await Promise.all(labels.map((l) => graph.views.resolveSession(l)))).map(
      (s) => s.session,
    );
    const answer = await graph.remember(query, { budget, sessions });
    if (flag(p, 'json')) {
      io.stdout(json(rememberJson(answer)));
      return 0;
    }
    if (answer.mode === 'lexical' && app.knowledge.embedding.model) {
      io.stderr('embeddings are not answering: this recall is by words only\n');
    }
    io.stdout(answer.text);
    return 0;
  } finally {
    await app.close();
  }
}
