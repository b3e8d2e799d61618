/**
 * `watchkeeper graph hook stop`: the Claude Code plugin's Stop hook. It hands the transcript to a
 * detached `watchkeeper graph index FILE` and returns at once, so the user's turn never waits for
 * indexing (seed 004 section 8; memory plugins that index in the hook are what users complain
 * about). The CLI writes the transcript asynchronously, so the indexer waits for the end of
 * `last_assistant_message` to be in the file before it reads. Loads nothing but node builtins:
 * this runs after every turn. Whatever happens, it exits 0 and prints nothing: a memory that
 * could not be indexed must never block or fail the session (the indexer logs to the data folder).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import type { CliIo } from '../io.js';

const MAX_INPUT = 4 * 1024 * 1024;
const BIN = fileURLToPath(new URL('../../../bin/watchkeeper.js', import.meta.url));

async function readInput(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    size += b.length;
    if (size > MAX_INPUT) break;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The command the hook starts (exported for the tests). */
export function indexArgs(input: unknown): string[] | null {
  if (typeof input !== 'object' || input === null) return null;
  const { transcript_path: path, last_assistant_message: last } = input as Record<string, unknown>;
  if (typeof path !== 'string' || path.trim() === '') return null;
  const args = [BIN, 'graph', 'index', path, '--from-hook'];
  if (typeof last === 'string' && last.trim() !== '')
    args.push('--until-text', last.trim().slice(-80));
  return args;
}

export async function graphHookCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] !== 'stop' || argv.length > 1) {
    io.stderr('usage: watchkeeper graph hook stop (reads the Stop hook JSON on stdin)\n');
    return 0;
  }
  let args: string[] | null = null;
  try {
    args = indexArgs(JSON.parse(await readInput(io)));
  } catch {
    return 0;
  }
  if (!args) return 0;
  try {
    const child = spawn(process.execPath, args, {
      detached: true,
      stdio: 'ignore',
      env: io.env,
    });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // Could not start the indexer: the next turn's hook (or a backfill) will read these lines.
  }
  return 0;
}
