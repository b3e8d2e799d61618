/**
 * `watchkeeper memories list|search|add|edit|delete|pin|unpin|deactivate|reactivate|archive|
 * restore|share|unshare|history|merge`.
 */
import { historyJson, memoryJson, type MemoryRow } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  CATEGORIES,
  formatConfidence,
  validateCategory,
  validateConfidence,
  validateService,
} from '../../memory/index.js';
import { openApp } from '../app.js';
import { searchCommand } from './search.js';
import { flag, parse, str, toIds, toInt, usageError } from '../args.js';
import { clip, json, shortTime, table } from '../format.js';
import { cliActor, type CliIo } from '../io.js';

export const MEMORIES_USAGE = `watchkeeper memories list [--service S] [--category C] [--instance NAME|fleet] [--all|--inactive] [--limit N] [--json]
watchkeeper memories add --category C [--service S] [--confidence X] [--pin] [--json] TEXT
watchkeeper memories edit ID [--text TEXT] [--confidence X] [--json]
watchkeeper memories delete ID...
watchkeeper memories pin|unpin ID
watchkeeper memories deactivate ID...
watchkeeper memories reactivate ID [--confidence X]
watchkeeper memories archive ID [--reason TEXT]
watchkeeper memories restore ID
watchkeeper memories share|unshare ID [--json]
  share: every instance of the fleet sees it; unshare: it belongs to this instance again.
watchkeeper memories history ID [--json]
watchkeeper memories merge ID ID... [--text TEXT] [--confidence X] [--json]
  Merge into the first ID: it keeps the best confidence (or X), the highest importance, the
  others' provenance in its history; the others are archived, linked to it, their history kept.
  Categories: ${CATEGORIES.join(', ')}. Service "general" (or none) means a general memory.`;

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

type App = ReturnType<typeof openApp>;

/**
 * One rule for every subcommand that takes ids: an id that names no memory fails the whole
 * command (exit 1) before anything is changed. `history` also accepts a deleted memory, whose
 * history is kept.
 */
function requireMemories(app: App, ids: readonly number[], orHistory = false): void {
  const missing = [...new Set(ids)].filter(
    (id) =>
      app.stores.memories.get(id) === null &&
      !(orHistory && app.stores.memories.history(id).length > 0),
  );
  if (missing.length === 0) return;
  const which = `no memory with id ${missing.join(', ')}`;
  throw new AppError('not_found', ids.length > 1 ? `${which}; nothing was changed` : which);
}

const confidenceOf = (v: string | undefined) =>
  v === undefined ? undefined : validateConfidence(v);

export async function memoriesCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  // Parse and validate everything before the database is opened: bad input changes nothing.
  switch (sub) {
    case 'search':
      return searchCommand(rest, io);
    case 'list': {
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
    case 'add': {
      const p = parse(
        rest,
        {
          category: { type: 'string' },
          service: { type: 'string' },
          confidence: { type: 'string' },
          pin: { type: 'boolean' },
          json: { type: 'boolean' },
        },
        1,
      );
      const text = p.positionals[0];
      if (text === undefined) throw usageError('memories add needs the observation text');
      const category = str(p, 'category');
      if (category === undefined)
        throw usageError(`memories add needs --category (${CATEGORIES.join(', ')})`);
      const input = {
        category: validateCategory(category),
        service: validateService(str(p, 'service')),
        observation: text,
        ...(str(p, 'confidence') !== undefined
          ? { confidence: confidenceOf(str(p, 'confidence')) }
          : {}),
        pinned: flag(p, 'pin'),
      };
      return withApp(io, async (app) => {
        const outcome = await app.knowledge.memory.add(input);
        const m = outcome.memory;
        if (flag(p, 'json')) io.stdout(json({ ...memoryJson(m), action: outcome.action }));
        else if (outcome.action === 'reinforced') {
          io.stdout(
            `memory ${m.id} already says this: reinforced to ${formatConfidence(m.confidence)}\n`,
          );
        } else if (outcome.action === 'superseded') {
          io.stdout(`memory ${m.id} added; it supersedes memory ${outcome.replaced!.id}\n`);
        } else io.stdout(`memory ${m.id} added\n`);
      });
    }
    case 'edit': {
      const p = parse(
        rest,
        { text: { type: 'string' }, confidence: { type: 'string' }, json: { type: 'boolean' } },
        1,
      );
      const [id] = toIds(p.positionals);
      const text = str(p, 'text');
      const confidence = confidenceOf(str(p, 'confidence'));
      if (text === undefined && confidence === undefined)
        throw usageError('memories edit needs --text and/or --confidence');
      return withApp(io, (app) => {
        requireMemories(app, [id!]);
        const m = app.knowledge.memory.edit(id!, {
          ...(text !== undefined ? { observation: text } : {}),
          ...(confidence !== undefined ? { confidence } : {}),
        });
        if (flag(p, 'json')) io.stdout(json(memoryJson(m)));
        else
          io.stdout(
            `memory ${m.id} updated (confidence ${formatConfidence(m.confidence)}, ${m.active ? 'active' : 'inactive'})\n`,
          );
      });
    }
    case 'delete': {
      const p = parse(rest, {}, Number.MAX_SAFE_INTEGER);
      const ids = toIds(p.positionals);
      return withApp(io, (app) => {
        requireMemories(app, ids);
        const n = app.knowledge.memory.remove(ids, cliActor(io));
        io.stdout(`${n} memor${n === 1 ? 'y' : 'ies'} deleted\n`);
      });
    }
    case 'pin':
    case 'unpin': {
      const p = parse(rest, {}, 1);
      const [id] = toIds(p.positionals);
      return withApp(io, (app) => {
        requireMemories(app, [id!]);
        const m = app.knowledge.memory.setPinned(id!, sub === 'pin');
        io.stdout(`memory ${m.id} ${m.pinned ? 'pinned: it will not decay' : 'unpinned'}\n`);
      });
    }
    case 'deactivate': {
      const p = parse(rest, {}, Number.MAX_SAFE_INTEGER);
      const ids = toIds(p.positionals);
      return withApp(io, (app) => {
        requireMemories(app, ids);
        const n = app.knowledge.memory.deactivate(ids);
        const already = new Set(ids).size - n;
        io.stdout(
          `${n} memor${n === 1 ? 'y' : 'ies'} deactivated${already > 0 ? ` (${already} already inactive)` : ''}\n`,
        );
      });
    }
    case 'reactivate': {
      const p = parse(rest, { confidence: { type: 'string' } }, 1);
      const [id] = toIds(p.positionals);
      const confidence = confidenceOf(str(p, 'confidence'));
      return withApp(io, (app) => {
        requireMemories(app, [id!]);
        const m = app.knowledge.memory.reactivate(id!, confidence);
        io.stdout(`memory ${m.id} active (confidence ${formatConfidence(m.confidence)})\n`);
      });
    }
    case 'archive': {
      const p = parse(rest, { reason: { type: 'string' } }, 1);
      const [id] = toIds(p.positionals);
      return withApp(io, (app) => {
        requireMemories(app, [id!]);
        const m = app.knowledge.memory.archive(id!, str(p, 'reason') ?? null);
        io.stdout(`memory ${m.id} archived: ${m.archiveReason ?? 'archived'}\n`);
      });
    }
    case 'restore': {
      const p = parse(rest, {}, 1);
      const [id] = toIds(p.positionals);
      return withApp(io, (app) => {
        requireMemories(app, [id!]);
        const m = app.knowledge.memory.restore(id!);
        io.stdout(
          `memory ${m.id} restored: active (confidence ${formatConfidence(m.confidence)})\n`,
        );
      });
    }
    case 'share':
    case 'unshare': {
      const p = parse(rest, { json: { type: 'boolean' } }, 1);
      const [id] = toIds(p.positionals);
      return withApp(io, (app) => {
        requireMemories(app, [id!]);
        const before = app.stores.memories.get(id!)!;
        const m =
          sub === 'share' ? app.knowledge.memory.share(id!) : app.knowledge.memory.unshare(id!);
        if (flag(p, 'json')) io.stdout(json(memoryJson(m)));
        else if (m.instance === before.instance)
          io.stdout(
            `memory ${m.id} ${sub === 'share' ? 'is already shared with the fleet' : `is not shared: it belongs to ${m.instance}`}\n`,
          );
        else
          io.stdout(
            sub === 'share'
              ? `memory ${m.id} shared with the fleet: every instance sees it\n`
              : `memory ${m.id} unshared: it belongs to ${m.instance}\n`,
          );
      });
    }
    case 'merge': {
      const p = parse(
        rest,
        { text: { type: 'string' }, confidence: { type: 'string' }, json: { type: 'boolean' } },
        10_000,
      );
      const ids = toIds(p.positionals);
      if (new Set(ids).size < 2)
        throw usageError('give at least two different memory ids to merge');
      const confidence = confidenceOf(str(p, 'confidence'));
      return withApp(io, async (app) => {
        requireMemories(app, ids);
        const { survivor, merged } = await app.knowledge.memory.merge(ids, {
          text: str(p, 'text') ?? null,
          ...(confidence === undefined ? {} : { confidence }),
        });
        if (flag(p, 'json')) {
          io.stdout(json({ survivor: memoryJson(survivor), merged: merged.map(memoryJson) }));
          return;
        }
        io.stdout(
          `merged ${merged.map((m) => `#${m.id}`).join(', ')} into memory ${survivor.id} (confidence ${formatConfidence(survivor.confidence)}, ${survivor.active ? 'active' : 'inactive'}): ${survivor.observation}
`,
        );
      });
    }
    case 'history': {
      const p = parse(rest, { json: { type: 'boolean' } }, 1);
      const [id] = toIds(p.positionals);
      return withApp(io, (app) => {
        requireMemories(app, [id!], true);
        const rows = app.stores.memories.history(id!);
        if (flag(p, 'json')) {
          io.stdout(json(rows.map(historyJson)));
          return;
        }
        if (rows.length === 0) {
          io.stdout(`no history for memory ${id}\n`);
          return;
        }
        const conf = (c: number | null) => (c === null ? '-' : formatConfidence(c));
        io.stdout(
          table(
            ['TIME (UTC)', 'ACTION', 'CONFIDENCE', 'SESSION', 'SOURCE', 'WORDING / EVIDENCE'],
            rows.map((h) => [
              shortTime(h.createdAt),
              h.action,
              `${conf(h.oldConfidence)} -> ${conf(h.newConfidence)}`,
              h.sessionId === null ? '-' : String(h.sessionId),
              h.source ?? '-',
              clip(
                [h.observation, h.evidence && `evidence: ${h.evidence}`]
                  .filter(Boolean)
                  .join(' | '),
                80,
              ),
            ]),
          ),
        );
      });
    }
    default:
      throw usageError(`unknown memories command "${sub ?? ''}"; usage:\n${MEMORIES_USAGE}`);
  }
}

async function withApp(io: CliIo, fn: (app: App) => void | Promise<void>): Promise<number> {
  const app = openApp(io);
  try {
    await fn(app);
    return 0;
  } finally {
    await app.close();
  }
}
