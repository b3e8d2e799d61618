/**
 * How a process on this machine finds the running `serve`: `serve-endpoint.json` in the data
 * folder, written at start (mode 0600: it holds the API token) and removed at stop, with serve's
 * pid, its loopback URL, the bearer token of WATCHKEEPER_AUTH_TOKEN (null when the dashboard
 * runs without a credential) and a random nonce of this start. The plugin's Stop hook reads it,
 * so it imports node builtins only.
 *
 * A file left by a serve killed with -9 still names its pid and port; once that pid is reused and
 * another program listens on that port, a pid check alone would hand it the token. So the hook
 * first asks whoever listens to prove it knows the nonce: it sends a random challenge and
 * expects HMAC-SHA256(nonce, challenge) back. Only the process that wrote the file (or one that
 * can read it, i.e. already holds the token) can answer, the challenge is fresh each time so an
 * answer cannot be replayed, and nothing secret crosses the wire before the answer is checked.
 * This was chosen over comparing the process start time in /proc/PID/stat because it works where
 * there is no /proc (macOS) and proves who listens on the port, not only who owns the pid.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultDataDir } from '../config/default-data-dir.js';
import { processAlive as alive } from '../process/alive.js';

export const ENDPOINT_FILE = 'serve-endpoint.json';

export interface ServeEndpoint {
  pid: number;
  url: string;
  token: string | null;
  /** Random per start; proves the listener is the serve that wrote the file. */
  nonce: string;
}

/** A fresh nonce for one start of serve. */
export function newEndpointNonce(): string {
  return randomBytes(32).toString('hex');
}

/** A fresh challenge for one hand-over. */
export function newChallenge(): string {
  return randomBytes(24).toString('hex');
}

/** The answer to `challenge` that only a holder of `nonce` can give. */
export function endpointProof(nonce: string, challenge: string): string {
  return createHmac('sha256', nonce)
    .update(`watchkeeper serve endpoint:${challenge}`)
    .digest('hex');
}

/** Whether `proof` answers `challenge` under `nonce` (compared in constant time). */
export function proofMatches(nonce: string, challenge: string, proof: unknown): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return false;
  return timingSafeEqual(Buffer.from(endpointProof(nonce, challenge)), Buffer.from(proof));
}

/**
 * The data folder as the config module resolves it (WATCHKEEPER_DATA_DIR, its Claude Ops alias,
 * the image's WATCHKEEPER_DEFAULT_DATA_DIR, ./data), without loading it: the hook runs after every turn and loads nothing it can avoid.
 */
export function dataDirOf(env: Record<string, string | undefined>): string {
  return resolve(
    env.WATCHKEEPER_DATA_DIR ||
      env.CLAUDEOPS_STATE_DIR ||
      defaultDataDir(env.WATCHKEEPER_DEFAULT_DATA_DIR),
  );
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

/**
 * The endpoint file, or null (no file, a bad one, one without a nonce, or its process is gone).
 * A live pid is not trusted yet: the listener must still prove the nonce.
 */
export function readServeEndpoint(dataDir: string): ServeEndpoint | null {
  try {
    const e = JSON.parse(
      readFileSync(join(dataDir, ENDPOINT_FILE), 'utf8'),
    ) as Partial<ServeEndpoint>;
    if (
      typeof e.pid !== 'number' ||
      typeof e.url !== 'string' ||
      typeof e.nonce !== 'string' ||
      e.nonce.length < 32 ||
      !alive(e.pid)
    )
      return null;
    return {
      pid: e.pid,
      url: e.url,
      token: typeof e.token === 'string' ? e.token : null,
      nonce: e.nonce,
    };
  } catch {
    return null;
  }
}
