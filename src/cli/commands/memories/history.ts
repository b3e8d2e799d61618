/** `watchkeeper memories history`: every change to a memory (a deleted one's too), oldest first. */
import { historyJson } from '../../../db/index.js';
import { formatConfidence } from '../../../memory/index.js';
import { flag, parse, toIds } from '../../args.js';
import { clip, json, shortTime, table } from '../../format.js';
import type { CliIo } from '../../io.js';
import { requireMemories, withApp } from './shared.js';

export async function historyCommand(rest: string[], io: CliIo): Promise<number> {
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
            [h.observation, h.evidence && `evidence: ${h.evidence}`].filter(Boolean).join(' | '),
            80,
          ),
        ]),
      ),
    );
  });
}
