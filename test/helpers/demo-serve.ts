/**
 * `watchkeeper serve --demo` (npm run demo) as a child process in a fresh data folder, its stderr
 * collected. Needs dist/ (it runs bin/watchkeeper.js). Only the start-up chain runs: the demo's
 * every-minute schedule would queue a second chain whenever a minute boundary fell inside the
 * first, and its sessions would join the rows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
const POLL_MS = 100;

export interface DemoServe {
  dataDir: string;
  dbPath: string;
  /** What serve has written to stderr so far. */
  log(): string;
  /**
   * Polls until `done()` holds, or serve exits while it waits; the caller asserts afterwards.
   * After serve has stopped it waits for other processes (a hook's own indexer) until `done()`.
   * No count of polls: on a busy machine serve is only slower, and the test's deadline catches
   * a hang.
   */
  until(done: () => boolean): Promise<void>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL if still running, and the data folder removed. */
  cleanUp(): void;
}

export function startDemoServe(env: Record<string, string> = {}): DemoServe {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-demo-'));
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--demo'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      WATCHKEEPER_DATA_DIR: dataDir,
      WATCHKEEPER_SCHEDULE: 'off',
      WATCHKEEPER_PORT: '0',
      ...env,
    },
  });
  let exited = false;
  const closed = new Promise<number | null>((r) =>
    child.on('close', (code) => {
      exited = true;
      r(code);
    }),
  );
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  return {
    dataDir,
    dbPath: join(dataDir, 'watchkeeper.db'),
    log: () => log,
    async until(done) {
      const running = !exited;
      while (!done() && !(running && exited)) {
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
    stop() {
      child.kill('SIGTERM');
      return closed;
    },
    cleanUp() {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
