/**
 * `watchkeeper graph ...`: the memory graph of seed 004 from the command line. `index` backfills
 * (with a progress bar and the time left), `remember` recalls within a token budget, `stats`,
 * `topics` and `idea` show what is stored. The Claude Code plugin's skills call these.
 */
import { unknownSubcommand } from '../args.js';
import type { CliIo } from '../io.js';
import { ideaCommand } from './graph/idea.js';
import { indexCommand } from './graph/index-command.js';
import { rememberCommand } from './graph/remember.js';
import { statsCommand } from './graph/stats.js';
import { topicsCommand } from './graph/topics.js';

export async function graphCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'index':
      return indexCommand(rest, io);
    case 'remember':
      return rememberCommand(rest, io);
    case 'stats':
      return statsCommand(rest, io);
    case 'topics':
      return topicsCommand(rest, io);
    case 'idea':
      return ideaCommand(rest, io);
    case 'hook': {
      const { graphHookCommand } = await import('./graph-hook.js');
      return graphHookCommand(rest, io);
    }
    default:
      throw unknownSubcommand('graph', sub, ['index', 'remember', 'stats', 'topics', 'idea']);
  }
}
