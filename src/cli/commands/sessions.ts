/** `watchkeeper sessions list`. */
import { sessionJson } from '../../db/index.js';
import { parseSessionQuery } from '../../web/session-query.js';
import { openApp } from '../app.js';
import { flag, parse, str, toInt, toTier, unknownSubcommand, usageError } from '../args.js';
import { json, shortTime, table } from '../format.js';
import type { CliIo } from '../io.js';

export async function sessionsCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'list') throw unknownSubcommand('sessions', sub, ['list']);
  const p = parse(rest, {
    limit: { type: 'string' },
    json: { type: 'boolean' },
    status: { type: 'string' },
    trigger: { type: 'string' },
    tier: { type: 'string' },
    since: { type: 'string' },
    instance: { type: 'string' },
  });
  const tier = str(p, 'tier');
  if (tier !== undefined) toTier(tier);
  // The dashboard's filter rules; --since is one of its quick ranges (1h, 24h, 7d, 30d).
  const query = parseSessionQuery(
    (name) => str(p, name === 'range' ? 'since' : name),
    io.clock.now(),
  );
  const problem = query.problems[0];
  if (problem) {
    throw usageError(`--${problem.field === 'range' ? 'since' : problem.field} ${problem.message}`);
  }
  const limit = str(p, 'limit') ? toInt('--limit', str(p, 'limit')!, 1, 100_000) : 50;
  const app = openApp(io);
  try {
    const rows = app.stores.sessions.list({ limit, filter: query.filter });
    if (flag(p, 'json')) {
      io.stdout(json(rows.map(sessionJson)));
      return 0;
    }
    if (rows.length === 0) {
      io.stdout('no sessions\n');
      return 0;
    }
    io.stdout(
      table(
        [
          'ID',
          'STARTED (UTC)',
          'STATUS',
          'TRIGGER',
          'TIER',
          'MODEL',
          'TURNS',
          'COST',
          'PARENT',
          'INSTANCE',
        ],
        rows.map((s) => [
          String(s.id),
          shortTime(s.startedAt),
          s.status,
          s.trigger,
          String(s.tier),
          `${s.model ?? '-'}${s.simulated ? ' (simulated)' : ''}`,
          s.numTurns === null ? '-' : String(s.numTurns),
          s.costUsd === null ? '-' : `$${s.costUsd.toFixed(4)}`,
          s.parentSessionId === null ? '-' : String(s.parentSessionId),
          s.instance,
        ]),
      ),
    );
    return 0;
  } finally {
    await app.close();
  }
}
