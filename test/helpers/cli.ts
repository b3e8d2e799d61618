import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runCli } from '../../src/cli/main.js';
import type { Clock } from '../../src/clock.js';
import { fakeClock } from './clock.js';
import { testDatabaseUrl } from './db.js';
import { localEmbedder } from './knowledge.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The store of the test app owning the folder, when it is on PostgreSQL (see testApp). */
function databaseEnv(dataDir: string): Record<string, string> {
  const url = testDatabaseUrl(dataDir);
  return url ? { WATCHKEEPER_DATABASE_URL: url } : {};
}

/**
 * Runs `watchkeeper ARGV` in-process against a data folder; stdin is the given text. A command
 * that embeds with the local model uses the test process's one (test/helpers/knowledge.ts).
 */
export function cliIn(
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-cli-')),
  clock: Clock = fakeClock(),
  env: Record<string, string> = {},
) {
  const run = async (argv: string[], stdin = ''): Promise<CliRun> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      stdin: [Buffer.from(stdin)],
      env: { WATCHKEEPER_DATA_DIR: dataDir, ...databaseEnv(dataDir), ...env },
      clock,
      onSignal: () => () => {},
      // One model load for every command of the test process, as a long-running serve has.
      localEmbedder: localEmbedder(),
    });
    return { code, stdout, stderr };
  };
  return { run, dataDir };
}
