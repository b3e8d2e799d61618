/** `watchkeeper runbooks show NAME`: a check, playbook or skill in full, as the agent reads it. */
import { readFile } from 'node:fs/promises';

import { loadConfig } from '../../../config/index.js';
import { AppError } from '../../../errors.js';
import { discoverRunbooks, docsNamed } from '../../../runbooks/index.js';
import { parse, usageError } from '../../args.js';
import type { CliIo } from '../../io.js';

const KIND_NAME = { checks: 'check', playbooks: 'playbook', skills: 'skill' } as const;

export async function runbooksShowCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, {}, 1);
  const name = p.positionals[0];
  if (!name) throw usageError('give the name of a check, playbook or skill');
  const config = loadConfig(io.env);
  const found = docsNamed(await discoverRunbooks({ reposDir: config.runbooks.reposDir }), name);
  if (found.length === 0) {
    throw new AppError(
      'invalid_input',
      `no check, playbook or skill is named "${name}"; \`watchkeeper runbooks list\` shows them`,
    );
  }
  for (const [i, doc] of found.entries()) {
    const tier = doc.kind === 'checks' ? '' : `, minimum tier ${doc.minTier}`;
    io.stdout(
      `${i > 0 ? '\n' : ''}==> ${doc.path} (${KIND_NAME[doc.kind]}, ${doc.source}${tier})\n`,
    );
    const text = await readFile(doc.path, 'utf8');
    io.stdout(text.endsWith('\n') ? text : `${text}\n`);
  }
  return 0;
}
