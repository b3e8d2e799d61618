/**
 * `watchkeeper graph ...`: the memory graph of seed 004 from the command line. `index` backfills
 * (with a progress bar and the time left), `remember` recalls within a token budget, `stats`,
 * `topics` and `idea` show what is stored. The Claude Code plugin's skills call these.
 */
import { DEFAULT_BUDGET } from '../../graph/index.js';
import { usageError } from '../args.js';
import type { CliIo } from '../io.js';
import { ideaCommand } from './graph/idea.js';
import { indexCommand } from './graph/index-command.js';
import { rememberCommand } from './graph/remember.js';
import { statsCommand } from './graph/stats.js';
import { topicsCommand } from './graph/topics.js';

export const GRAPH_USAGE = `watchkeeper graph index PATH|DIR...|--current|--all [--dry-run] [--model] [--json]
  Index transcripts into the memory graph: Claude Code's (~/.claude/projects/**/*.jsonl,
  subagents included) and watchkeeper's session logs (data/sessions/*.ndjson). Only what was
  appended since the last run is read. --current: the session being written in this folder;
  --all: both places and WATCHKEEPER_GRAPH_ROOTS. --model: topic names, summaries and
  ideas by the model gateway (offline rules otherwise, and whenever a job fails).
watchkeeper graph remember QUERY [--budget TOKENS] [--session S] [--hyde] [--json]
  Recall: ideas and their topics by meaning, words, entities and relations, within the budget
  (default ${DEFAULT_BUDGET} tokens). "decisions about X", "open questions", "problems with X",
  "last week", "yesterday", "in March" and "recently" narrow or order it. --hyde: a vague query
  is also searched with the answer the model gateway imagines for it.
watchkeeper graph stats [--json] | topics [SESSION] [--json] | idea ID [--json]`;

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
      throw usageError(`unknown graph command "${sub ?? ''}"; try:\n${GRAPH_USAGE}`);
  }
}
