/**
 * `watchkeeper graph index`: reads what was appended to each transcript since the last run, with
 * a progress bar, and reports per file and in total (or as JSON). `--from-hook` is the Stop
 * hook's indexer (graph-index-hook.ts).
 */
import { isAppError } from '../../../errors.js';
import { type IndexOutcome, indexReportJson } from '../../../graph/index.js';
import { flag, parse, str } from '../../args.js';
import { json } from '../../format.js';
import type { CliIo } from '../../io.js';
import { progressReporter } from '../../progress.js';
import { filesToIndex, pendingLines } from './index-files.js';
import { openGraph } from './open.js';

export async function indexCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(
    argv,
    {
      all: { type: 'boolean' },
      current: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      model: { type: 'boolean' },
      // The Stop hook's indexer: reads the requests hooks left (graph-index-hook.ts).
      'until-text': { type: 'string' },
      'from-hook': { type: 'boolean' },
    },
    10_000,
  );
  if (flag(p, 'from-hook')) {
    const { indexFromHook } = await import('../graph-index-hook.js');
    return indexFromHook(io, { paths: p.positionals, untilText: str(p, 'until-text') ?? null });
  }
  const { app, graph } = openGraph(io, flag(p, 'model'));
  try {
    const files = await filesToIndex(
      p.positionals,
      { all: flag(p, 'all'), current: flag(p, 'current') },
      {
        projects: app.config.graph.claudeProjectsDir,
        sessionsDir: app.config.sessionsDir,
        roots: app.config.graph.roots,
      },
    );
    const dryRun = flag(p, 'dry-run');
    const total = await pendingLines(graph, files);
    const progress = progressReporter(io, dryRun ? 'reading' : 'indexing');
    let done = 0;
    const reports: IndexOutcome[] = [];
    const errors: { file: string; code: string; message: string }[] = [];
    if (total > 0) progress.update(0, total);
    for (const file of files) {
      try {
        const untilText = str(p, 'until-text');
        reports.push(
          await graph.index(file, {
            dryRun,
            ...(untilText ? { untilText } : {}),
            onLines: (n) => {
              done += n;
              if (total > 0) progress.update(Math.min(done, total), total);
            },
          }),
        );
      } catch (err) {
        if (!isAppError(err)) throw err;
        errors.push({ file, code: err.code, message: err.message });
        io.stderr(`watchkeeper: ${err.message}\n`);
      }
    }
    if (total > 0) progress.end();
    const embedded = dryRun ? 0 : await graph.embedPending();
    const sum = (k: 'lines' | 'turns' | 'ideas' | 'spans' | 'relations') =>
      reports.reduce((n, r) => n + r[k], 0);
    const changed = reports.filter((r) => r.status !== 'unchanged');
    if (flag(p, 'json')) {
      io.stdout(
        json({
          files: reports.map(indexReportJson),
          failed: errors.length,
          errors,
          totals: {
            files: reports.length,
            changed: changed.length,
            lines: sum('lines'),
            turns: sum('turns'),
            ideas: sum('ideas'),
            spans: sum('spans'),
            relations: sum('relations'),
          },
          embedded_later: embedded,
        }),
      );
      return errors.length > 0 ? 1 : 0;
    }
    // A dry run reads and extracts but closes no topic and compares with nothing stored: it
    // cannot know spans or relations, so it does not print zeros for them.
    const built = (spans: number, relations: number) =>
      dryRun ? '' : `, ${spans} spans, ${relations} relations`;
    for (const r of changed) {
      const what =
        r.status === 'queued'
          ? 'another indexing job for this file is running; it reads these lines too'
          : `${r.lines} lines, ${r.turns} turns (${r.skipped} skipped), ${r.ideas} ideas${built(r.spans, r.relations)}`;
      io.stdout(
        `${r.status}${r.reset ? ' (rewritten: read again from the start)' : ''}: ${r.file}: ${what}${r.partialLine ? '; an unfinished last line waits for the next run' : ''}\n`,
      );
    }
    io.stdout(
      `${dryRun ? 'would index' : 'indexed'} ${changed.length} of ${reports.length} files (${reports.length - changed.length} unchanged): ` +
        `${sum('lines')} lines, ${sum('ideas')} ideas${built(sum('spans'), sum('relations'))}\n`,
    );
    return errors.length > 0 ? 1 : 0;
  } finally {
    await app.close();
  }
}
