/** `watchkeeper context`, `decay`, `reindex` and `migrate`. */
import { loadConfig } from '../../config/index.js';
import { migrate, openDatabase } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { openApp } from '../app.js';
import { flag, parse, str, toInt, toTier, usageError } from '../args.js';
import { json } from '../format.js';
import type { CliIo } from '../io.js';
import { progressReporter } from '../progress.js';

export async function contextCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, {
    budget: { type: 'string' },
    query: { type: 'string' },
    tier: { type: 'string' },
    json: { type: 'boolean' },
  });
  const budgetArg = str(p, 'budget');
  const budget = budgetArg === undefined ? undefined : toInt('--budget', budgetArg, 0, 1_000_000);
  const tier = toTier(str(p, 'tier') ?? '1');
  const query = str(p, 'query');
  if (query !== undefined && query.trim() === '') throw usageError('--query must not be empty');
  const app = openApp(io);
  try {
    const limit = budget ?? app.config.runner.tiers[tier].memoryBudget;
    const block = await app.knowledge.injection.build({ trigger: query ?? null }, limit);
    if (flag(p, 'json')) {
      io.stdout(
        json({
          text: block.text,
          query: block.query,
          budget: limit,
          estimated_tokens: block.estimatedTokens,
          total_eligible: block.totalEligible,
          memories: block.injected.map((m) => ({
            memory_id: m.memoryId,
            reason: m.reason,
            score: m.score,
          })),
        }),
      );
      return 0;
    }
    if (block.text === '') {
      io.stderr(
        block.totalEligible === 0
          ? 'no active memories: the next session gets no memory block\n'
          : `no memory fits a budget of ${limit} tokens\n`,
      );
      return 0;
    }
    io.stdout(`${block.text}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

export async function decayCommand(argv: string[], io: CliIo): Promise<number> {
  parse(argv, {});
  const app = openApp(io);
  try {
    const r = await app.knowledge.memory.decay();
    io.stdout(
      `${r.decayed} memor${r.decayed === 1 ? 'y' : 'ies'} decayed, ${r.deactivated} deactivated\n`,
    );
    return 0;
  } finally {
    await app.close();
  }
}

export async function reindexCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { pending: { type: 'boolean' } });
  const app = openApp(io);
  try {
    const { embedding, pending } = app.knowledge;
    if (!embedding.model) {
      throw new AppError(
        'invalid_input',
        'embeddings are off (WATCHKEEPER_EMBEDDINGS=off): there is nothing to index; search is lexical',
      );
    }
    await embedding.embedder!.warmUp();
    const bar = progressReporter(io, `embedding with ${embedding.model}`);
    const started = io.clock.now();
    const n = await pending.reindex(!flag(p, 'pending'), (pr) => bar.update(pr.done, pr.total));
    bar.end();
    const seconds = ((io.clock.now() - started) / 1000).toFixed(1);
    io.stdout(
      `${n} memor${n === 1 ? 'y' : 'ies'} embedded with ${embedding.model} in ${seconds} s\n`,
    );
    return 0;
  } finally {
    await app.close();
  }
}

export async function migrateCommand(argv: string[], io: CliIo): Promise<number> {
  parse(argv, {});
  const config = loadConfig(io.env);
  const db = openDatabase(config.dbPath);
  try {
    const r = migrate(db);
    io.stdout(
      r.applied.length === 0
        ? `database ${config.dbPath} is up to date (schema ${r.current})\n`
        : `applied ${r.applied.join(', ')} to ${config.dbPath}\n`,
    );
    return 0;
  } finally {
    db.close();
  }
}
