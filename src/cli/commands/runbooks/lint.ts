/**
 * `watchkeeper runbooks lint [PATH]`: every problem in a manifest, a `.claude-ops` folder, a
 * repository or the repos folder (the default), one `file:line: message` a line. Exit 2 when
 * there is one, 0 when there is none.
 */
import { loadConfig } from '../../../config/index.js';
import { formatIssue, lintRunbooks } from '../../../runbooks/index.js';
import { parse, usageError } from '../../args.js';
import { EXIT_BAD_INPUT, EXIT_DONE } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';

export async function runbooksLintCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, {}, 1);
  const path = p.positionals[0] ?? loadConfig(io.env).runbooks.reposDir;
  if (!path) throw usageError('give a PATH, or set WATCHKEEPER_REPOS_DIR to the repos folder');
  const issues = await lintRunbooks(path);
  for (const issue of issues) io.stdout(`${formatIssue(issue)}\n`);
  if (issues.length > 0) {
    io.stderr(`watchkeeper: ${issues.length} problem(s) in ${path}\n`);
    return EXIT_BAD_INPUT;
  }
  io.stdout(`${path}: no problems found\n`);
  return EXIT_DONE;
}
