/** `watchkeeper memories share|unshare`: a memory for the whole fleet, or for this instance again. */
import { memoryJson } from '../../../db/index.js';
import { flag, parse, toIds } from '../../args.js';
import { json } from '../../format.js';
import type { CliIo } from '../../io.js';
import { requireMemories, withApp } from './shared.js';

export async function shareCommand(
  sub: 'share' | 'unshare',
  rest: string[],
  io: CliIo,
): Promise<number> {
  const p = parse(rest, { json: { type: 'boolean' } }, 1);
  const [id] = toIds(p.positionals);
  return withApp(io, async (app) => {
    requireMemories(app, [id!]);
    const before = app.stores.memories.get(id!)!;
    const memory = app.knowledge.memory;
    const m = await (sub === 'share' ? memory.share(id!) : memory.unshare(id!));
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
