/** `watchkeeper services list|show S|describe S TEXT`: every service seen, and what it is. */
import { serviceJson } from '../../db/index.js';
import { openApp } from '../app.js';
import { flag, parse, unknownSubcommand, usageError } from '../args.js';
import { clip, json, shortTime, table } from '../format.js';
import type { CliIo } from '../io.js';

export async function servicesCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list': {
      const p = parse(rest, { json: { type: 'boolean' } });
      const app = openApp(io);
      try {
        const rows = await app.knowledge.services.list();
        if (flag(p, 'json')) io.stdout(json(rows.map(serviceJson)));
        else if (rows.length === 0) io.stdout('no services seen yet\n');
        else
          io.stdout(
            table(
              ['SERVICE', 'MEMORIES', 'EVENTS', 'LAST EVENT (UTC)', 'WHAT IT IS'],
              rows.map((s) => [
                s.name,
                `${s.activeMemories}${s.inactiveMemories ? ` (+${s.inactiveMemories})` : ''}`,
                String(s.events),
                shortTime(s.lastEventAt),
                s.description ? `${clip(s.description, 70)} [${s.descriptionSource}]` : '-',
              ]),
            ),
          );
        return 0;
      } finally {
        await app.close();
      }
    }
    case 'show': {
      const p = parse(rest, { json: { type: 'boolean' } }, 1);
      const name = p.positionals[0];
      if (name === undefined) throw usageError('services show needs a service name');
      const app = openApp(io);
      try {
        const s = await app.knowledge.services.show(name);
        if (flag(p, 'json')) {
          io.stdout(json(serviceJson(s)));
          return 0;
        }
        io.stdout(
          [
            `service:      ${s.name}`,
            `what it is:   ${s.description ?? '-'}${s.descriptionSource ? ` (${s.descriptionSource})` : ''}`,
            ...(s.catalog && s.descriptionSource !== 'catalog'
              ? [`catalog says: ${s.catalog.description}`]
              : []),
            `memories:     ${s.activeMemories} active, ${s.inactiveMemories} inactive`,
            `events:       ${s.events} (last ${shortTime(s.lastEventAt)})`,
            `cooldowns:    ${s.cooldownActions} recorded actions`,
            '',
          ].join('\n'),
        );
        return 0;
      } finally {
        await app.close();
      }
    }
    case 'describe': {
      const p = parse(rest, {}, 2);
      const [name, text] = p.positionals;
      if (name === undefined || text === undefined) {
        throw usageError('services describe needs a service name and a description');
      }
      const app = openApp(io);
      try {
        app.knowledge.services.describe(name, text, 'operator');
        const s = await app.knowledge.services.show(name);
        io.stdout(
          s.description
            ? `${s.name}: ${s.description} (${s.descriptionSource})\n`
            : `${s.name}: no description\n`,
        );
        return 0;
      } finally {
        await app.close();
      }
    }
    default:
      throw unknownSubcommand('services', sub, ['list', 'show', 'describe']);
  }
}
