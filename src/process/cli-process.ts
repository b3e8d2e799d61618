/**
 * Owns one CLI process for its whole life (a session's, or a model gateway job's): spawned without a shell in its own process group,
 * stdout consumed with backpressure, ended by timeout or stop request with SIGTERM to the whole
 * group and SIGKILL after a grace period. Completion waits for both the exit and the end of
 * stdout, but a grandchild holding stdout open gets only `stdoutGraceMs` before the pipe is
 * closed (an orphaned MCP server once hung the Go sidecar for 38 hours).
 */
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';

import { execa, type ResultPromise } from 'execa';

import { withParentDeathSignal } from './parent-death.js';

export interface CliProcessOptions {
  bin: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
  killGraceMs: number;
  stdoutGraceMs: number;
  /** Written to the CLI's stdin, then closed (stdin is closed at once without it). */
  input?: string;
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
  /** Set when the process could not be started at all (missing binary, E2BIG, a NUL). */
  spawnError: string | null;
  /** Set when reading stdout or the consumer failed. */
  streamError: string | null;
}

export async function runCliProcess(o: CliProcessOptions): Promise<CliProcessResult> {
  // Where the platform allows, the kernel ends the CLI if watchkeeper itself is killed.
  const cmd = withParentDeathSignal(
    { bin: o.bin, args: o.args },
    { path: o.env.PATH ?? '', cwd: o.cwd },
  );
  const result: CliProcessResult = {
    exitCode: null,
    signal: null,
    timedOut: false,
    stopped: false,
    stdoutForced: false,
    spawnError: null,
    streamError: null,
  };
  let child: ResultPromise;
  try {
    child = execa(cmd.bin, cmd.args, {
      env: o.env,
      extendEnv: false,
      cwd: o.cwd,
      detached: true,
      buffer: false,
      // The prompt goes in on stdin: no size limit and no NUL restriction, unlike an argument.
      ...(o.input !== undefined ? { input: o.input } : { stdin: 'ignore' as const }),
      stdout: 'pipe',
      stderr: 'pipe',
      reject: false,
      cleanup: false,
      windowsHide: true,
    });
  } catch (err) {
    // Refused before exec (an argument holding a NUL): there is no process to wait for.
    return { ...result, spawnError: spawnFailure(err) };
  }
  // The execa promise waits for stdio to close, which a grandchild can prevent: observe the
  // ChildProcess events instead, and only keep the promise from rejecting unobserved.
  void child.catch(() => undefined);
  if (child.pid === undefined) {
    // exec failed (E2BIG, ENOENT, EACCES): no pid means no exit event, no timeout and nothing to
    // kill, so waiting for the exit would wait forever. execa settles at once for a failure it
    // saw synchronously (E2BIG); the others arrive as the child's 'error' event.
    const failure = await Promise.race([
      child.then(
        (r) => r as unknown,
        (e: unknown) => e,
      ),
      once(child, 'error').then(([e]) => e as unknown),
    ]);
    return { ...result, spawnError: spawnFailure(failure) };
  }

  const pid = child.pid;
  const killGroup = (sig: NodeJS.Signals) => {
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
    // After a successful spawn an 'error' (a failed kill) changes nothing: the exit still comes.
    child.on('error', () => undefined);
  });

  try {
    o.onSpawn?.(pid);
  } catch (err) {
    // The caller could not take charge of the process: end it rather than leave it unwatched.
    clearTimeout(timeoutTimer);
    killGroup('SIGKILL');
    throw err;
  }
  if (o.signal?.aborted) onAbort();
  else o.signal?.addEventListener('abort', onAbort, { once: true });
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
  child.stderr?.destroy();
  clearTimeout(timeoutTimer);
  clearTimeout(killTimer);
  o.signal?.removeEventListener('abort', onAbort);
  // Whatever is left of the group (background shells, MCP servers) ends with the session.
  killGroup('SIGKILL');
  return result;
}

const SPAWN_REASONS: Record<string, string> = {
  E2BIG: 'its arguments and environment are over the system limit (E2BIG)',
  ENOENT: 'no such file, or its working directory is missing (ENOENT)',
  EACCES: 'permission denied: not an executable file (EACCES)',
};

/**
 * Why exec failed, in a few words. Never the error's own message: execa puts the whole command
 * line in it, which can be 100s of KB of prompt and memories.
 */
function spawnFailure(err: unknown): string {
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    originalMessage?: unknown;
    message?: unknown;
  };
  const code = typeof e.code === 'string' ? e.code : null;
  if (code && SPAWN_REASONS[code]) return SPAWN_REASONS[code];
  const message = String(e.originalMessage ?? e.message ?? err);
  if (/null bytes/i.test(message)) return 'an argument contains a NUL character';
  if (code) return `spawn failed (${code})`;
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}
