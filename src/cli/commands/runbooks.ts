/**
 * `watchkeeper runbooks ...`: what sessions are told about the operator's repositories and the
 * built-in library (`list`), one document as the agent reads it (`show`), and what is wrong in
 * a manifest or a `.claude-ops` folder (`lint`). Each reads the disk afresh.
 */
import { usageError } from '../args.js';
import type { CliIo } from '../io.js';
import { RUNBOOKS_USAGE } from '../usage.js';
import { runbooksLintCommand } from './runbooks/lint.js';
import { runbooksListCommand } from './runbooks/list.js';
import { runbooksShowCommand } from './runbooks/show.js';

export async function runbooksCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list':
      return runbooksListCommand(rest, io);
    case 'show':
      return runbooksShowCommand(rest, io);
    case 'lint':
      return runbooksLintCommand(rest, io);
    default:
      throw usageError(`unknown runbooks command "${sub ?? ''}"; try:\n${RUNBOOKS_USAGE}`);
  }
}
