/**
 * Owns one CLI process for its whole life: spawned without a shell in its own process group,
 * stdout consumed with backpressure, ended by timeout or stop request with SIGTERM to the whole
 * group and SIGKILL after a grace period. Completion waits for both the exit and the end of
 * stdout, but a grandchild holding stdout open gets only `stdoutGraceMs` before the pipe is
 * closed (an orphaned MCP server once hung the Go sidecar for 38 hours).
 */
import { setTimeout as delay } from 'node:timers/promises';

import { execa } from 'execa';

export interface CliProcessOptions {
  bin: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
  killGraceMs: number;
  stdoutGraceMs: number;
  /** Aborting it stops the process (status `stopped`). */
  signal?: AbortSignal;
  /** Awaited before the next chunk is read: slow consumers slow the pipe, nothing is dropped. */
  onStdout(chunk: Buffer): Promise<void> | void;
  onStderr(chunk: Buffer): void;
  onSpawn?(pid: number): void;
}

export interface CliProcessResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stopped: boolean;
  /** True when stdout was still held open after the exit and had to be closed. */
  stdoutForced: boolean;
  /** Set when the process could not be started at all (missing binary, bad cwd). */
  spawnError: string | null;
  /** Set when reading stdout or the consumer failed. */
  streamError: string | null;
}

export async function runCliProcess(o: CliProcessOptions): Promise<CliProcessResult> {
  const child = execa(o.bin, o.args, {
    env: o.env,
    extendEnv: false,
    cwd: o.cwd,
    detached: true,
    buffer: false,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    reject: false,
    cleanup: false,
    windowsHide: true,
  });
  // The execa promise waits for stdio to close, which a grandchild can prevent: observe the
  // ChildProcess events instead, and only keep the promise from rejecting unobserved.
  void child.catch(() => undefined);

  const result: CliProcessResult = {
    exitCode: null,
    signal: null,
    timedOut: false,
    stopped: false,
    stdoutForced: false,
    spawnError: null,
    streamError: null,
  };
  const pid = child.pid;
  const killGroup = (sig: NodeJS.Signals) => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, sig);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = () => {
    killGroup('SIGTERM');
    killTimer ??= setTimeout(() => killGroup('SIGKILL'), o.killGraceMs);
  };
  const timeoutTimer = setTimeout(() => {
    result.timedOut = true;
    terminate();
  }, o.timeoutMs);
  const onAbort = () => {
    result.stopped = true;
    terminate();
  };

  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      result.exitCode = code;
      result.signal = signal;
      resolve();
    });
    child.once('error', (err) => {
      if (pid === undefined) {
        result.spawnError = err.message;
        resolve();
      }
    });
  });

  if (pid !== undefined) {
    o.onSpawn?.(pid);
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
  }
  child.stderr?.on('data', (chunk: Buffer) => o.onStderr(chunk));
  const pump = (async () => {
    if (!child.stdout) return;
    try {
      for await (const chunk of child.stdout) await o.onStdout(chunk as Buffer);
    } catch (err) {
      if (!result.stdoutForced) result.streamError = (err as Error).message;
      // Keep the pipe drained so the process can never block on a full pipe.
      child.stdout.resume();
    }
  })();

  await exited;
  if (result.spawnError === null) {
    const grace = new AbortController();
    const drained = await Promise.race([
      pump.then(() => true),
      delay(o.stdoutGraceMs, false, { signal: grace.signal }).catch(() => true),
    ]);
    grace.abort(); // a grace timer left running would keep the process alive
    if (!drained) {
      result.stdoutForced = true;
      child.stdout?.destroy();
      await pump;
    }
  }
  child.stderr?.destroy();
  clearTimeout(timeoutTimer);
  clearTimeout(killTimer);
  o.signal?.removeEventListener('abort', onAbort);
  // Whatever is left of the group (background shells, MCP servers) ends with the session.
  killGroup('SIGKILL');
  return result;
}
