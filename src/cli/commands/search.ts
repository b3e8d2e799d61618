/** `watchkeeper memories search QUERY`: the hybrid search, with why each result ranked there. */
import { cutResultJson, searchResultJson } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { formatConfidence, validateCategory, validateService } from '../../memory/index.js';
import { openApp } from '../app.js';
import { flag, parse, str, toInt, usageError } from '../args.js';
import { clip, json, table } from '../format.js';
import type { CliIo } from '../io.js';
import type { CutResult, SearchResult } from '../../knowledge/index.js';

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
      explain: { type: 'boolean' },
    },
    1,
  );
  const explain = flag(p, 'explain');
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
    if (service && !(await app.knowledge.services.isKnown(service))) {
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
      explain,
      ...(service !== undefined ? { service } : {}),
      ...(category !== undefined ? { category: validateCategory(category) } : {}),
    });
    if (flag(p, 'json')) {
      io.stdout(
        json({
          query,
          mode: answer.mode,
          results: answer.results.map(searchResultJson),
          ...(answer.cut ? { cut: answer.cut.map(cutResultJson) } : {}),
        }),
      );
      return 0;
    }
    if (answer.mode === 'lexical' && app.knowledge.embedding.model) {
      io.stderr('embeddings are not answering: these results are lexical only\n');
    }
    if (answer.results.length === 0) io.stdout('no memory matches\n');
    else printResults(io, answer.results);
    if (answer.cut) printCut(io, answer.cut);
    return 0;
  } finally {
    await app.close();
  }
}

function printResults(io: CliIo, results: SearchResult[]): void {
  io.stdout(
    table(
      ['ID', 'SCORE', 'SERVICE', 'CATEGORY', 'CONF', 'WHY', 'OBSERVATION'],
      results.map(({ memory: m, why }) => [
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
}

/** `--explain`: the candidates that did not come back, and why. */
function printCut(io: CliIo, cut: CutResult[]): void {
  if (cut.length === 0) {
    io.stdout('\nNo other candidate.\n');
    return;
  }
  io.stdout('\nCut (did not come back):\n');
  io.stdout(
    table(
      ['ID', 'SCORE', 'REASON', 'DETAIL', 'OBSERVATION'],
      cut.map((c) => [
        String(c.memory.id),
        c.why.score.toFixed(2),
        c.reason,
        c.detail,
        clip(c.memory.observation, 60),
      ]),
    ),
  );
}
