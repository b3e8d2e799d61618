/** `watchkeeper ingest [--force] [FILE|-]`: import a saved stream-json transcript as a session. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

import { AppError } from '../../errors.js';
import { importTranscript } from '../../runner/import.js';
import { openApp } from '../app.js';
import { flag, parse, str, toTier } from '../args.js';
import { json } from '../format.js';
import type { CliIo } from '../io.js';

export async function ingestCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(
    argv,
    { tier: { type: 'string' }, json: { type: 'boolean' }, force: { type: 'boolean' } },
    1,
  );
  const file = p.positionals[0] ?? '-';
  const tier = str(p, 'tier') === undefined ? 1 : toTier(str(p, 'tier')!);
  if (file !== '-') {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(file)).isDirectory();
    } catch (cause) {
      throw new AppError(
        'input_unreadable',
        `cannot read ${file}: ${(cause as NodeJS.ErrnoException).code ?? cause}`,
        { cause },
      );
    }
    if (isDirectory) {
      throw new AppError(
        'invalid_input',
        `${file} is a folder; give a transcript file (or - for stdin); nothing was imported`,
      );
    }
  }
  const source = file === '-' ? io.stdin : createReadStream(file);
  const app = openApp(io);
  try {
    const r = await importTranscript(
      source,
      {
        stores: app.stores,
        knowledge: app.knowledge,
        clock: io.clock,
        dataDir: app.config.dataDir,
        maxLineBytes: app.config.maxLineBytes,
      },
      { tier, force: flag(p, 'force') },
    );
    if (flag(p, 'json')) {
      io.stdout(
        json({
          session_id: r.sessionId,
          status: r.status,
          error: r.error,
          cli_session_id: r.cliSessionId,
          events: r.counts.events,
          memories_created: r.counts.memoriesCreated,
          memories_reinforced: r.counts.memoriesReinforced,
          cooldown_actions: r.counts.cooldowns,
          markers_rejected: r.counts.rejected,
          markers_repeated: r.counts.duplicates,
          previous_imports: r.previousImports,
          stream: {
            bytes: r.stats.bytes,
            lines: r.stats.lines,
            messages: r.stats.messages,
            oversized_lines: r.stats.oversizedLines,
            non_json_lines: r.stats.nonJsonLines,
            invalid_utf8_lines: r.stats.invalidUtf8Lines,
            unknown_types: r.stats.unknownTypes,
            unterminated_last_line: r.stats.unterminatedLastLine,
          },
        }),
      );
    } else {
      const c = r.counts;
      const s = r.stats;
      io.stdout(
        `session ${r.sessionId} (${r.status}${r.error ? `: ${r.error}` : ''})\n` +
          `  ${s.messages} messages in ${s.lines} lines (${s.bytes} bytes)\n` +
          `  events: ${c.events}  memories: ${c.memoriesCreated} new, ${c.memoriesReinforced} reinforced` +
          `  cooldown actions: ${c.cooldowns}\n`,
      );
      const notes: string[] = [];
      if (c.rejected)
        notes.push(
          `${c.rejected} marker(s) not stored (see \`watchkeeper events list --session ${r.sessionId}\`)`,
        );
      if (c.duplicates) notes.push(`${c.duplicates} repeated marker(s) ingested once`);
      if (s.oversizedLines) notes.push(`${s.oversizedLines} line(s) over the line limit skipped`);
      if (s.nonJsonLines) notes.push(`${s.nonJsonLines} non-JSON line(s) skipped`);
      if (s.invalidUtf8Lines) notes.push(`${s.invalidUtf8Lines} line(s) with invalid UTF-8`);
      if (s.unknownTypes) notes.push(`${s.unknownTypes} message(s) of unknown type ignored`);
      if (r.previousImports.length) {
        notes.push(
          `imported again (--force): this CLI session is also recorded as session ${r.previousImports.join(', ')}`,
        );
      }
      for (const n of notes) io.stdout(`  note: ${n}\n`);
    }
    return 0;
  } finally {
    await app.close();
  }
}
