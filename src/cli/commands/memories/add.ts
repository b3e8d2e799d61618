/** `watchkeeper memories add`: an operator's memory through the memory service (it may reinforce or supersede). */
import { memoryJson } from '../../../db/index.js';
import {
  CATEGORIES,
  formatConfidence,
  validateCategory,
  validateService,
} from '../../../memory/index.js';
import { flag, parse, str, usageError } from '../../args.js';
import { json } from '../../format.js';
import type { CliIo } from '../../io.js';
import { confidenceOf, withApp } from './shared.js';

export async function addCommand(rest: string[], io: CliIo): Promise<number> {
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
