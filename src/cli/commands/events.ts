/** `watchkeeper events list`. */
import { eventJson } from '../../db/index.js';
import { parseEventQuery } from '../../web/event-query.js';
import { openApp } from '../app.js';
import { flag, parse, str, toEnum, toInt, unknownSubcommand, usageError } from '../args.js';
import { clip, json, shortTime, table } from '../format.js';
import type { CliIo } from '../io.js';

export async function eventsCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'list') throw unknownSubcommand('events', sub, ['list']);
  const p = parse(rest, {
    level: { type: 'string' },
    service: { type: 'string' },
    session: { type: 'string' },
    source: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    search: { type: 'string' },
    since: { type: 'string' },
    instance: { type: 'string' },
  });
  // Words and a quick range, by the Events page's rules (event-query.ts).
  const extra = parseEventQuery(
    (name) =>
      name === 'q'
        ? str(p, 'search')
        : name === 'range'
          ? str(p, 'since')
          : name === 'instance'
            ? str(p, 'instance')
            : undefined,
    io.clock.now(),
  );
  const problem = extra.problems[0];
  if (problem) {
    const option =
      problem.field === 'q' ? 'search' : problem.field === 'range' ? 'since' : problem.field;
    throw usageError(`--${option} ${problem.message}`);
  }
  const level = str(p, 'level');
  const source = str(p, 'source');
  const session = str(p, 'session');
  const filter = {
    ...(level ? { level: toEnum('--level', level, ['info', 'warning', 'critical'] as const) } : {}),
    ...(str(p, 'service') ? { service: str(p, 'service')!.trim().toLowerCase() } : {}),
    ...(session ? { sessionId: toInt('--session', session, 1, Number.MAX_SAFE_INTEGER) } : {}),
    ...(source ? { source: toEnum('--source', source, ['agent', 'system'] as const) } : {}),
    limit: str(p, 'limit') ? toInt('--limit', str(p, 'limit')!, 1, 100_000) : 100,
    ...(extra.filter.text ? { text: extra.filter.text } : {}),
    ...(extra.filter.from !== undefined ? { from: extra.filter.from } : {}),
    ...(extra.filter.instance !== undefined ? { instance: extra.filter.instance } : {}),
  };
  const app = openApp(io);
  try {
    const rows = app.stores.events.list(filter);
    if (flag(p, 'json')) {
      io.stdout(json(rows.map(eventJson)));
      return 0;
    }
    if (rows.length === 0) {
      io.stdout('no events\n');
      return 0;
    }
    io.stdout(
      table(
        ['ID', 'TIME (UTC)', 'LEVEL', 'SOURCE', 'SERVICE', 'SESSION', 'INSTANCE', 'MESSAGE'],
        rows.map((e) => [
          String(e.id),
          shortTime(e.createdAt),
          e.level,
          e.source,
          e.service ?? '-',
          e.sessionId === null ? '-' : String(e.sessionId),
          e.instance,
          clip(e.message, 100),
        ]),
      ),
    );
    return 0;
  } finally {
    await app.close();
  }
}
