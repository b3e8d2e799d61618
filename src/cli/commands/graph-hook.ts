/**
 * `watchkeeper graph hook stop`: the Claude Code plugin's Stop hook. It hands the transcript to the
 * running `serve` over loopback when there is one (found through serve-endpoint.json in the data
 * folder, once serve has proved it wrote that file; serve queues it and indexes in the
 * background), otherwise leaves it for the one detached `watchkeeper graph index --from-hook`
 * (started if none runs: hook-requests.ts), and returns at once, so the user's turn never waits for indexing (seed 004
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

import {
  claimIndexerLock,
  handIndexerLock,
  leaveRequest,
  releaseIndexerLock,
} from '../hook-requests.js';
import { type CliIo, readStdin } from '../io.js';
import {
  dataDirOf,
  newChallenge,
  proofMatches,
  readServeEndpoint,
  type ServeEndpoint,
} from '../serve-endpoint.js';

const MAX_INPUT = 4 * 1024 * 1024;
const BIN = fileURLToPath(new URL('../../../bin/watchkeeper.js', import.meta.url));
/** How long serve may take to accept the transcript before the hook starts its own indexer. */
const SERVE_DEADLINE_MS = 300;
const TAIL = 80;
/** More than a proof or a refusal: an answer this long is not serve's. */
const MAX_ANSWER = 16 * 1024;

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

/** The detached indexer's command line (it reads the requests the hooks left). */
export function indexArgs(): string[] {
  return [BIN, 'graph', 'index', '--from-hook'];
}

interface Answer {
  status: number;
  body: string;
}

/** One request to serve within `deadline` (epoch ms); null on any failure. */
function call(
  url: URL,
  o: { method: string; headers?: Record<string, string | number>; body?: string },
  deadline: number,
): Promise<Answer | null> {
  return new Promise((done) => {
    const left = deadline - Date.now();
    if (left <= 0) {
      done(null);
      return;
    }
    const req = request(
      url,
      { method: o.method, headers: o.headers ?? {}, timeout: left },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER) req.destroy();
          else chunks.push(chunk);
        });
        res.on('end', () =>
          done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', () => done(null));
      },
    );
    const timer = setTimeout(() => req.destroy(), left);
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(null));
    req.on('close', () => {
      clearTimeout(timer);
      done(null);
    });
    req.end(o.body);
  });
}

/** Whether whoever listens at the endpoint's URL knows the file's nonce (serve-endpoint.ts). */
async function servesTheFile(endpoint: ServeEndpoint, deadline: number): Promise<boolean> {
  const challenge = newChallenge();
  const url = new URL('/api/v1/graph/endpoint-proof', endpoint.url);
  url.searchParams.set('challenge', challenge);
  const answer = await call(url, { method: 'GET' }, deadline);
  if (answer?.status !== 200) return false;
  try {
    const { proof } = JSON.parse(answer.body) as { proof?: unknown };
    return proofMatches(endpoint.nonce, challenge, proof);
  } catch {
    return false;
  }
}

/**
 * POSTs the transcript to serve's /api/v1/graph/index once serve has proved it wrote the
 * endpoint file (nothing, token or path, is sent before); true when serve queued it (202).
 * Anything else (no answer within the deadline, no proof, an older serve without the route, a
 * refused token) is false, and the caller indexes on its own: the per-file lock keeps the two
 * from overlapping.
 */
export async function handToServe(
  endpoint: ServeEndpoint,
  r: HookRequest,
  deadlineMs = SERVE_DEADLINE_MS,
): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  let url: URL;
  try {
    url = new URL('/api/v1/graph/index', endpoint.url);
  } catch {
    return false;
  }
  if (!(await servesTheFile(endpoint, deadline))) return false;
  const body = JSON.stringify({
    transcript_path: r.transcriptPath,
    ...(r.untilText ? { last_assistant_message: r.untilText } : {}),
  });
  const answer = await call(
    url,
    {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        ...(endpoint.token ? { Authorization: `Bearer ${endpoint.token}` } : {}),
      },
      body,
    },
    deadline,
  );
  return answer?.status === 202;
}

/**
 * Leaves the request for the detached indexer and starts one unless one runs (it will read this
 * request too). A data folder that cannot be made fails here, at once, and nothing is started.
 */
export function leaveForIndexer(dataDir: string, r: HookRequest, env: CliIo['env']): void {
  leaveRequest(dataDir, r);
  if (!claimIndexerLock(dataDir)) return;
  try {
    const child = spawn(process.execPath, indexArgs(), { detached: true, stdio: 'ignore', env });
    child.on('error', () => releaseIndexerLock(dataDir, child.pid));
    if (child.pid === undefined) releaseIndexerLock(dataDir);
    else handIndexerLock(dataDir, process.pid, child.pid);
    child.unref();
  } catch {
    // Could not start the indexer: the next turn's hook starts one, which reads this request.
    releaseIndexerLock(dataDir);
  }
}

/** `deadlineMs`: how long serve may take (tests on a loaded machine give it longer). */
export async function graphHookCommand(
  argv: string[],
  io: CliIo,
  deadlineMs = SERVE_DEADLINE_MS,
): Promise<number> {
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
  const dataDir = dataDirOf(io.env);
  const endpoint = readServeEndpoint(dataDir);
  if (endpoint && (await handToServe(endpoint, r, deadlineMs))) return 0;
  try {
    leaveForIndexer(dataDir, r, io.env);
  } catch {
    // No data folder to leave it in: nothing can be indexed there, and the session goes on.
  }
  return 0;
}
