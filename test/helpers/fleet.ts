/**
 * A fleet of real `serve` processes (bin/watchkeeper.js, so dist/ must be built) sharing one
 * PostgreSQL database, each with its own data folder and instance name, running the fleet fixture
 * CLI (test/fixtures/bin/fleet-claude.mjs). Each member is driven over its HTTP API with a bearer
 * token, as a script would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { logLines } from './log-lines.js';
import { WaitAborted, waitFor } from './wait.js';

const BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));
export const FLEET_CLAUDE = fileURLToPath(
  new URL('../fixtures/bin/fleet-claude.mjs', import.meta.url),
);
export const FLEET_TOKEN = 'fleet-test-token-0123456789abcdef';

/** What the fixture CLI recorded about one session. */
export interface FixtureRecord {
  prompt: string;
  systemPrompt: string | null;
  instance: string | null;
  pid: number;
  hooks: { command: string; exitCode: number | null; stderr: string }[];
}

export interface FleetMember {
  instance: string;
  dataDir: string;
  /** The dashboard's base URL (http://127.0.0.1:PORT). */
  url: string;
  pid: number;
  /** What serve has written to stderr so far. */
  log(): string;
  /** A request with the bearer token; JSON bodies are sent as such. */
  request(path: string, init?: { method?: string; json?: unknown }): Promise<Response>;
  /** GET path as JSON, failing with the body unless the answer is 200. */
  get<T = Record<string, unknown>>(path: string): Promise<T>;
  /** The fixture's record of a session, or null when this member's CLI never ran it. */
  fixture(sessionId: number): FixtureRecord | null;
  /** Resolves with the exit code (or signal) once the process has ended. */
  closed: Promise<number | string | null>;
  kill(signal: NodeJS.Signals): void;
}

/**
 * Starts `watchkeeper serve` as `instance` on `databaseUrl`, with the fleet fixture as its CLI
 * and no schedule (runs are started over the API). Resolves once it serves; `env` adds or
 * overrides settings.
 */
export async function startFleetMember(
  instance: string,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<FleetMember> {
  const dataDir = mkdtempSync(join(tmpdir(), `watchkeeper-fleet-${instance}-`));
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      WATCHKEEPER_DATA_DIR: dataDir,
      WATCHKEEPER_DATABASE_URL: databaseUrl,
      WATCHKEEPER_INSTANCE: instance,
      WATCHKEEPER_CLAUDE_BIN: FLEET_CLAUDE,
      WATCHKEEPER_SCHEDULE: 'off',
      WATCHKEEPER_PORT: '0',
      WATCHKEEPER_AUTH_TOKEN: FLEET_TOKEN,
      WATCHKEEPER_EMBEDDINGS: 'off',
      WATCHKEEPER_GATEWAY: 'off',
      WATCHKEEPER_SESSION_TIMEOUT: '60s',
      WATCHKEEPER_KILL_GRACE: '1s',
      WATCHKEEPER_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  let exited: number | string | null | undefined;
  const closed = new Promise<number | string | null>((resolve) =>
    child.on('close', (code, signal) => {
      exited = code ?? signal;
      resolve(exited);
    }),
  );
  const serving = await waitFor(`${instance} to serve`, () => {
    if (exited !== undefined) {
      throw new WaitAborted(`serve ${instance} exited (${exited}) before serving:\n${log}`);
    }
    return logLines(log).find((l) => l.msg === 'watchkeeper serving');
  }).catch((err: Error) => {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${err.message}\n--- ${instance} log ---\n${log}`);
  });
  const url = String(serving.dashboard).replace(/\/$/, '');

  const request: FleetMember['request'] = (path, init = {}) =>
    fetch(`${url}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${FLEET_TOKEN}`,
        ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });
  return {
    instance,
    dataDir,
    url,
    pid: child.pid!,
    log: () => log,
    request,
    async get<T>(path: string): Promise<T> {
      const res = await request(path);
      const body = await res.text();
      if (res.status !== 200) {
        throw new Error(`GET ${path} on ${instance}: ${res.status} ${body.slice(0, 500)}`);
      }
      return JSON.parse(body) as T;
    },
    fixture(sessionId) {
      const file = join(dataDir, 'fleet-claude', `${sessionId}.json`);
      return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as FixtureRecord) : null;
    },
    closed,
    kill(signal) {
      if (exited === undefined) child.kill(signal);
    },
  };
}

/** Ends the member (SIGKILL when still running) and removes its data folder. */
export async function removeFleetMember(m: FleetMember): Promise<void> {
  m.kill('SIGKILL');
  await m.closed;
  rmSync(m.dataDir, { recursive: true, force: true });
}

/** The API's view of a session (the fields the fleet test reads). */
export interface ApiSession {
  id: number;
  status: string;
  instance: string;
  error: string | null;
  system_prompt?: string | null;
  events?: { message: string; service: string | null; instance?: string }[];
}

/** Starts a run on `m` over the API with this script as its prompt; resolves with its request id. */
export async function startRun(m: FleetMember, script: string[]): Promise<string> {
  const res = await m.request('/api/v1/sessions', { json: { prompt: script.join('\n'), tier: 1 } });
  const body = await res.text();
  if (res.status !== 202) throw new Error(`starting a run on ${m.instance}: ${res.status} ${body}`);
  return (JSON.parse(body) as { request_id: string }).request_id;
}

/** The session a run request on `m` started, once it has one. */
export async function sessionOf(m: FleetMember, requestId: string, ms = 20_000): Promise<number> {
  return waitFor(
    `the session of run ${requestId} on ${m.instance}`,
    async () => {
      const t = await m.get<{ session_ids: number[]; state: string; error: string | null }>(
        `/api/v1/sessions/requests/${requestId}`,
      );
      if (t.state === 'failed' && t.session_ids.length === 0) {
        throw new WaitAborted(`run ${requestId} on ${m.instance} failed: ${t.error}`);
      }
      return t.session_ids[0];
    },
    ms,
  );
}

/** Polls `m`'s API until session `id` has left `running`; resolves with what the API says. */
export async function sessionEnded(m: FleetMember, id: number, ms = 20_000): Promise<ApiSession> {
  return waitFor(
    `session ${id} to end (asked ${m.instance})`,
    async () => {
      const s = await m.get<ApiSession>(`/api/v1/sessions/${id}`);
      return s.status === 'running' ? null : s;
    },
    ms,
  );
}
