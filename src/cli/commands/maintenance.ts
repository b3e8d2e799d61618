/** `watchkeeper context`, `decay` and `migrate`. */
import { loadConfig } from '../../config.js';
import { migrate, openDatabase } from '../../db/index.js';
import { openApp } from '../app.js';
import { parse, str, toInt } from '../args.js';
import type { CliIo } from '../io.js';

export const CONTEXT_USAGE = `watchkeeper context [--budget N]
  Print the exact memory block the next session will get (after decay).`;

export async function contextCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { budget: { type: 'string' } });
  const budgetArg = str(p, 'budget');
  const budget = budgetArg === undefined ? undefined : toInt('--budget', budgetArg, 0, 1_000_000);
  const app = openApp(io);
  try {
    const block = app.keeper.buildContext(budget ?? app.config.memoryBudget);
    if (block.text === '') {
      io.stderr(
        block.totalEligible === 0
          ? 'no active memories: the next session gets no memory block\n'
          : `no memory fits a budget of ${budget ?? app.config.memoryBudget} tokens\n`,
      );
      return 0;
    }
    io.stdout(`${block.text}\n`);
    return 0;
  } finally {
    app.close();
  }
}

export async function decayCommand(argv: string[], io: CliIo): Promise<number> {
  parse(argv, {});
  const app = openApp(io);
  try {
    const r = app.keeper.decay();
    io.stdout(
      `${r.decayed} memor${r.decayed === 1 ? 'y' : 'ies'} decayed, ${r.deactivated} deactivated\n`,
    );
    return 0;
  } finally {
    app.close();
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
