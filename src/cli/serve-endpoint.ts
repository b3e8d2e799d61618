/**
 * How a process on this machine finds the running `serve`: `serve-endpoint.json` in the data
 * folder, written at start (mode 0600: it holds the API token) and removed at stop, with serve's
 * pid, its loopback URL and the bearer token of WATCHKEEPER_AUTH_TOKEN (null when the dashboard
 * runs without a credential). The plugin's Stop hook reads it, so it imports node builtins only.
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { processAlive as alive } from '../process/alive.js';

export const ENDPOINT_FILE = 'serve-endpoint.json';

export interface ServeEndpoint {
  pid: number;
  url: string;
  token: string | null;
}

/**
 * The data folder as the config module resolves it (WATCHKEEPER_DATA_DIR, its Claude Ops alias,
 * ./data), without loading it: the hook runs after every turn and loads nothing it can avoid.
 */
export function dataDirOf(env: Record<string, string | undefined>): string {
  return resolve(env.WATCHKEEPER_DATA_DIR || env.CLAUDEOPS_STATE_DIR || './data');
}

/** serve's URL as seen from this machine: an address that listens everywhere via loopback. */
export function loopbackUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.origin;
}

export function writeServeEndpoint(dataDir: string, endpoint: ServeEndpoint): void {
  const path = join(dataDir, ENDPOINT_FILE);
  // Removed first: a file left by another user's serve keeps its owner and mode otherwise.
  rmSync(path, { force: true });
  writeFileSync(path, JSON.stringify(endpoint), { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
}

/** Removes the file, if it is this process's (a newer serve may have replaced it). */
export function removeServeEndpoint(dataDir: string, pid = process.pid): void {
  if (readServeEndpoint(dataDir)?.pid === pid)
    rmSync(join(dataDir, ENDPOINT_FILE), { force: true });
}

/** The running serve's endpoint, or null (no file, a bad one, or its process is gone). */
export function readServeEndpoint(dataDir: string): ServeEndpoint | null {
  try {
    const e = JSON.parse(
      readFileSync(join(dataDir, ENDPOINT_FILE), 'utf8'),
    ) as Partial<ServeEndpoint>;
    if (typeof e.pid !== 'number' || typeof e.url !== 'string' || !alive(e.pid)) return null;
    return { pid: e.pid, url: e.url, token: typeof e.token === 'string' ? e.token : null };
  } catch {
    return null;
  }
}
