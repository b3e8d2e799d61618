/** `watchkeeper memories list`: memories by service, category, instance and status, as a table or JSON. */
import { memoryJson, type MemoryRow } from '../../../db/index.js';
import { formatConfidence, validateCategory, validateService } from '../../../memory/index.js';
import { flag, parse, str, toInt, usageError } from '../../args.js';
import { clip, json, shortTime, table } from '../../format.js';
import type { CliIo } from '../../io.js';
import { withApp } from './shared.js';

function printRows(io: CliIo, rows: MemoryRow[], asJson: boolean): void {
  if (asJson) {
    io.stdout(json(rows.map(memoryJson)));
    return;
  }
  if (rows.length === 0) {
    io.stdout('no memories\n');
    return;
  }
  io.stdout(
    table(
      [
        'ID',
        'SERVICE',
        'CATEGORY',
        'CONF',
        'STATUS',
        'UPDATED (UTC)',
        'SESSION',
        'INSTANCE',
        'OBSERVATION',
      ],
      rows.map((m) => [
        String(m.id),
        m.service ?? 'general',
        m.category,
        formatConfidence(m.confidence),
        `${m.active ? 'active' : 'inactive'}${m.pinned ? ',pinned' : ''}`,
        shortTime(m.updatedAt),
        m.sessionId === null ? '-' : String(m.sessionId),
        m.instance,
        clip(m.observation, 90),
      ]),
    ),
  );
}

export async function listCommand(rest: string[], io: CliIo): Promise<number> {
  const p = parse(rest, {
    service: { type: 'string' },
    category: { type: 'string' },
    instance: { type: 'string' },
    all: { type: 'boolean' },
    inactive: { type: 'boolean' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (flag(p, 'all') && flag(p, 'inactive'))
    throw usageError('--all and --inactive exclude each other');
  const service = str(p, 'service');
  const category = str(p, 'category');
  const instance = str(p, 'instance')?.trim();
  if (instance !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(instance))
    throw usageError(
      `--instance "${instance}": expected an instance name (letters, digits, ".", "_", "-") or fleet`,
    );
  const filter = {
    ...(service !== undefined ? { service: validateService(service) } : {}),
    ...(instance !== undefined ? { instance } : {}),
    ...(category !== undefined ? { category: validateCategory(category) } : {}),
    status: flag(p, 'all')
      ? ('all' as const)
      : flag(p, 'inactive')
        ? ('inactive' as const)
        : ('active' as const),
    limit: str(p, 'limit') ? toInt('--limit', str(p, 'limit')!, 1, 1_000_000) : 200,
  };
  return withApp(io, (app) => printRows(io, app.stores.memories.list(filter), flag(p, 'json')));
}
