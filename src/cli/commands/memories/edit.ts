/** `watchkeeper memories edit` and `merge`: the operator's changes to a memory's wording and confidence. */
import { memoryJson } from '../../../db/index.js';
import { formatConfidence } from '../../../memory/index.js';
import { flag, parse, str, toIds, usageError } from '../../args.js';
import { json } from '../../format.js';
import type { CliIo } from '../../io.js';
import { confidenceOf, requireMemories, withApp } from './shared.js';

export async function editCommand(rest: string[], io: CliIo): Promise<number> {
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
  return withApp(io, async (app) => {
    requireMemories(app, [id!]);
    const m = await app.knowledge.memory.edit(id!, {
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

export async function mergeCommand(rest: string[], io: CliIo): Promise<number> {
  const p = parse(
    rest,
    { text: { type: 'string' }, confidence: { type: 'string' }, json: { type: 'boolean' } },
    10_000,
  );
  const ids = toIds(p.positionals);
  if (new Set(ids).size < 2) throw usageError('give at least two different memory ids to merge');
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
