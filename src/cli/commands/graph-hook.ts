/**
 * `watchkeeper graph hook stop`: the Claude Code plugin's Stop hook. It hands the transcript to the
 * running `serve` over loopback when there is one (found through serve-endpoint.json in the data
 * folder; serve queues it and indexes in the background), otherwise to a detached `watchkeeper
 * graph index FILE`, and returns at once, so the user's turn never waits for indexing (seed 004
 * section 8; memory plugins that index in the hook are what users complain about). The CLI writes
 * the transcript asynchronously, so the indexer waits for the end of `last_assistant_message` to
 * be in the file before it reads. Loads nothing but node builtins: this runs after every turn.
 * Whatever happens, it exits 0 and prints nothing: a memory that could not be indexed must never
 * block or fail the session (the indexer logs to the data folder).
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { type CliIo, readStdin } from '../io.js';
import { dataDirOf, readServeEndpoint, type ServeEndpoint } from '../serve-endpoint.js';

const MAX_INPUT = 4 * 1024 * 1024;
const BIN = fileURLToPath(new URL('../../../bin/watchkeeper.js', import.meta.url));
/** How long serve may take to accept the transcript before the hook starts its own indexer. */
const SERVE_DEADLINE_MS = 300;
const TAIL = 80;

/** What the hook hands on: the transcript and the end of the turn's last message. */
export interface HookRequest {
  transcriptPath: string;
  untilText: string | null;
}

export function hookRequest(input: unknown): HookRequest | null {
  if (typeof input !== 'object' || input === null) return null;
  const { transcript_path: path, last_assistant_message: last } = input as Record<string, unknown>;
  if (typeof path !== 'string' || path.trim() === '') return null;
  return {
    transcriptPath: resolve(path),
    untilText: typeof last === 'string' && last.trim() !== '' ? last.trim().slice(-TAIL) : null,
  };
}

/** The detached indexer's command line. */
export function indexArgs(r: HookRequest): string[] {
  const args = [BIN, 'graph', 'index', r.transcriptPath, '--from-hook'];
  if (r.untilText) args.push('--until-text', r.untilText);
  return args;
}

/**
 * POSTs the transcript to serve's /api/v1/graph/index; true when serve queued it (202). Anything
 * else (no answer within the deadline, an older serve without the route, a refused token) is
 * false, and the caller indexes on its own: the per-file lock keeps the two from overlapping.
 */
export function handToServe(
  endpoint: ServeEndpoint,
  r: HookRequest,
  deadlineMs = SERVE_DEADLINE_MS,
): Promise<boolean> {
  return new Promise((done) => {
    let body: string;
    let url: URL;
    try {
      body = JSON.stringify({
        transcript_path: r.transcriptPath,
        ...(r.untilText ? { last_assistant_message: r.untilText } : {}),
      });
      url = new URL('/api/v1/graph/index', endpoint.url);
    } catch {
      done(false);
      return;
    }
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          ...(endpoint.token ? { Authorization: `Bearer ${endpoint.token}` } : {}),
        },
        timeout: deadlineMs,
      },
      (res) => {
        res.resume();
        done(res.statusCode === 202);
      },
    );
    const timer = setTimeout(() => req.destroy(), deadlineMs);
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(false));
    req.on('close', () => {
      clearTimeout(timer);
      done(false);
    });
    req.end(body);
  });
}

export async function graphHookCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] !== 'stop' || argv.length > 1) {
    io.stderr('usage: watchkeeper graph hook stop (reads the Stop hook JSON on stdin)\n');
    return 0;
  }
  let r: HookRequest | null = null;
  try {
    r = hookRequest(JSON.parse(await readStdin(io, MAX_INPUT)));
  } catch {
    return 0;
  }
  if (!r) return 0;
  const endpoint = readServeEndpoint(dataDirOf(io.env));
  if (endpoint && (await handToServe(endpoint, r))) return 0;
  try {
    const child = spawn(process.execPath, indexArgs(r), {
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
