/** `watchkeeper memories search QUERY`: the hybrid search, with why each result ranked there. */
import { searchResultJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { formatConfidence, validateCategory, validateService } from '../../memory/index.js';
import { openApp } from '../app.js';
import { flag, parse, str, toInt, usageError } from '../args.js';
import { clip, json, table } from '../format.js';
import type { CliIo } from '../io.js';

export async function searchCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(
    argv,
    {
      limit: { type: 'string' },
      service: { type: 'string' },
      category: { type: 'string' },
      all: { type: 'boolean' },
      inactive: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    1,
  );
  const query = p.positionals[0];
  if (query === undefined || query.trim() === '') {
    throw usageError('memories search needs a query (the words to search for)');
  }
  const limit = toInt('--limit', str(p, 'limit') ?? '10', 1, 100);
  const category = str(p, 'category');
  const serviceArg = str(p, 'service');
  const service = serviceArg === undefined ? undefined : validateService(serviceArg);
  const status = flag(p, 'all') ? 'all' : flag(p, 'inactive') ? 'inactive' : 'active';
  const app = openApp(io);
  try {
    if (service && !app.knowledge.services.isKnown(service)) {
      throw new AppError(
        'invalid_input',
        `service: no memory, event or cooldown names "${service}"`,
        {
          data: { field: 'service' },
        },
      );
    }
    const answer = await app.knowledge.search.search(query, {
      limit,
      status,
      ...(service !== undefined ? { service } : {}),
      ...(category !== undefined ? { category: validateCategory(category) } : {}),
    });
    if (flag(p, 'json')) {
      io.stdout(
        json({
          query,
          mode: answer.mode,
          results: answer.results.map(searchResultJson),
        }),
      );
      return 0;
    }
    if (answer.mode === 'lexical' && app.knowledge.embedding.model) {
      io.stderr('embeddings are not answering: these results are lexical only\n');
    }
    if (answer.results.length === 0) {
      io.stdout('no memory matches\n');
      return 0;
    }
    io.stdout(
      table(
        ['ID', 'SCORE', 'SERVICE', 'CATEGORY', 'CONF', 'WHY', 'OBSERVATION'],
        answer.results.map(({ memory: m, why }) => [
          String(m.id),
          why.score.toFixed(2),
          m.service ?? 'general',
          m.category,
          formatConfidence(m.confidence),
          [
            why.lexicalRank !== null ? `words #${why.lexicalRank}` : null,
            why.cosine !== null ? `meaning ${why.cosine.toFixed(2)}` : null,
            m.active ? null : 'inactive',
          ]
            .filter(Boolean)
            .join(', '),
          clip(m.observation, 80),
        ]),
      ),
    );
    return 0;
  } finally {
    await app.close();
  }
}
