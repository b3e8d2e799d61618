/**
 * `watchkeeper memories delete|pin|unpin|deactivate|reactivate|archive|restore`: a memory's
 * place in its lifecycle, set by the operator.
 */
import { formatConfidence } from '../../../memory/index.js';
import { parse, str, toIds } from '../../args.js';
import { cliActor, type CliIo } from '../../io.js';
import { confidenceOf, requireMemories, withApp } from './shared.js';

export async function deleteCommand(rest: string[], io: CliIo): Promise<number> {
  const p = parse(rest, {}, Number.MAX_SAFE_INTEGER);
  const ids = toIds(p.positionals);
  return withApp(io, async (app) => {
    requireMemories(app, ids);
    const n = await app.knowledge.memory.remove(ids, cliActor(io));
    io.stdout(`${n} memor${n === 1 ? 'y' : 'ies'} deleted\n`);
  });
}

export async function pinCommand(sub: 'pin' | 'unpin', rest: string[], io: CliIo): Promise<number> {
  const p = parse(rest, {}, 1);
  const [id] = toIds(p.positionals);
  return withApp(io, async (app) => {
    requireMemories(app, [id!]);
    const m = await app.knowledge.memory.setPinned(id!, sub === 'pin');
    io.stdout(`memory ${m.id} ${m.pinned ? 'pinned: it will not decay' : 'unpinned'}\n`);
  });
}

export async function deactivateCommand(rest: string[], io: CliIo): Promise<number> {
  const p = parse(rest, {}, Number.MAX_SAFE_INTEGER);
  const ids = toIds(p.positionals);
  return withApp(io, async (app) => {
    requireMemories(app, ids);
    const n = await app.knowledge.memory.deactivate(ids);
    const already = new Set(ids).size - n;
    io.stdout(
      `${n} memor${n === 1 ? 'y' : 'ies'} deactivated${already > 0 ? ` (${already} already inactive)` : ''}\n`,
    );
  });
}

export async function reactivateCommand(rest: string[], io: CliIo): Promise<number> {
  const p = parse(rest, { confidence: { type: 'string' } }, 1);
  const [id] = toIds(p.positionals);
  const confidence = confidenceOf(str(p, 'confidence'));
  return withApp(io, async (app) => {
    requireMemories(app, [id!]);
    const m = await app.knowledge.memory.reactivate(id!, confidence);
    io.stdout(`memory ${m.id} active (confidence ${formatConfidence(m.confidence)})\n`);
  });
}

export async function archiveCommand(rest: string[], io: CliIo): Promise<number> {
  const p = parse(rest, { reason: { type: 'string' } }, 1);
  const [id] = toIds(p.positionals);
  return withApp(io, async (app) => {
    requireMemories(app, [id!]);
    const m = await app.knowledge.memory.archive(id!, str(p, 'reason') ?? null);
    io.stdout(`memory ${m.id} archived: ${m.archiveReason ?? 'archived'}\n`);
  });
}

export async function restoreCommand(rest: string[], io: CliIo): Promise<number> {
  const p = parse(rest, {}, 1);
  const [id] = toIds(p.positionals);
  return withApp(io, async (app) => {
    requireMemories(app, [id!]);
    const m = await app.knowledge.memory.restore(id!);
    io.stdout(`memory ${m.id} restored: active (confidence ${formatConfidence(m.confidence)})\n`);
  });
}
