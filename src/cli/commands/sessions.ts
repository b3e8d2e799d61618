/** `watchkeeper sessions list`. */
import { sessionJson } from '../../db/index.js';
import { openApp } from '../app.js';
import { flag, parse, str, toInt, usageError } from '../args.js';
import { json, shortTime, table } from '../format.js';
import type { CliIo } from '../io.js';

export const SESSIONS_USAGE = 'watchkeeper sessions list [--limit N] [--json]';

export async function sessionsCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'list')
    throw usageError(`unknown sessions command "${sub ?? ''}"; try: ${SESSIONS_USAGE}`);
  const p = parse(rest, { limit: { type: 'string' }, json: { type: 'boolean' } });
  const limit = str(p, 'limit') ? toInt('--limit', str(p, 'limit')!, 1, 100_000) : 50;
  const app = openApp(io);
  try {
    const rows = app.stores.sessions.list({ limit });
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
        ['ID', 'STARTED (UTC)', 'STATUS', 'TRIGGER', 'TIER', 'MODEL', 'TURNS', 'COST', 'PARENT'],
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
        ]),
      ),
    );
    return 0;
  } finally {
    app.close();
  }
}
