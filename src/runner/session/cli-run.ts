/**
 * The CLI's run for a prepared session: its environment and arguments, stdout into the intake,
 * stderr captured, everything drained once it exits, and the run judged (status and error).
 */
import { join } from 'node:path';

import { runCliProcess } from '../../process/cli-process.js';
import { cliArgs, dryRunTools } from '../cli-args.js';
import { outageError } from '../marker-outbox.js';
import type { SessionFiles } from '../session-files.js';
import { sessionEnv } from './env.js';
import { createIntake } from './intake.js';
import type { Held } from './prepare.js';
import type { SessionRequest, SessionRunnerDeps } from './request.js';
import { captureStderr } from './stderr-capture.js';
import { sessionVerdict } from './verdict.js';

export async function runCli(p: {
  deps: SessionRunnerDeps;
  req: SessionRequest;
  sessionId: number;
  requestedAt: number;
  prompt: string;
  files: SessionFiles;
  /** The session log, relative to the data folder. */
  logRelative: string;
  beatNow: () => void;
  held: Held;
  signal: AbortSignal | undefined;
}) {
  const { deps, req, sessionId, files, signal } = p;
  const { config, stores, clock, feed, log } = deps;
  const runner = config.runner;
  const tierConfig = runner.tiers[req.tier];
  const env = sessionEnv(deps, sessionId, req.tier);
  const args = cliArgs({
    // A dry run gets the read-only list at every tier, however the run was started.
    tier: runner.dryRun ? dryRunTools(tierConfig, runner.tiers[1]) : tierConfig,
    runner,
    systemPromptFile: files.systemPromptFile,
    settingsFile: files.settingsFile,
    mcpConfigFile: files.mcpConfigFile,
  });

  const stderr = captureStderr(
    join(config.sessionsDir, `${sessionId}.stderr.log`),
    sessionId,
    feed,
    log,
  );
  p.held.stderrLog = stderr.stream;
  const intake = createIntake({
    deps,
    sessionId,
    tier: req.tier,
    logPath: join(config.dataDir, p.logRelative),
    beatNow: p.beatNow,
  });
  const { outbox, ingest, parser, tee } = intake;

  const result = await runCliProcess({
    bin: runner.claudeBin,
    args,
    env,
    cwd: runner.workdir,
    timeoutMs: runner.sessionTimeoutMs,
    killGraceMs: runner.killGraceMs,
    stdoutGraceMs: runner.stdoutGraceMs,
    input: p.prompt,
    ...(signal ? { signal } : {}),
    onSpawn: (pid) => {
      // Detached: the CLI leads its own group, so its pid is the group id a later start-up
      // ends if this process is killed before the session finishes.
      stores.sessions.setPgid(sessionId, pid).catch((err: unknown) =>
        deps.log.warn('recording the session CLI process group failed', {
          session: sessionId,
          error: err as Error,
        }),
      );
      deps.onSpawn?.(sessionId, p.requestedAt, clock.now());
    },
    onStdout: (chunk) => tee.write(chunk),
    onStderr: (chunk) => stderr.onChunk(chunk),
  });
  await tee.close();
  await ingest.settled();
  intake.noteFailure(ingest.failure);
  if (tee.logFailure)
    log.error('writing the session log failed', { session: sessionId, error: tee.logFailure });
  await stderr.end();
  ingest.reportStreamIssues(parser.stats, config.maxLineBytes);
  // A last try for what the outbox holds; what it still holds is recorded when it can be.
  await outbox.flush();
  outbox.stop();
  const kept = outbox.state();

  const verdict = sessionVerdict({
    result,
    resultLine: ingest.transcript.result,
    claudeBin: runner.claudeBin,
    sessionTimeoutMs: runner.sessionTimeoutMs,
    stderrTail: stderr.tail,
    env,
    ingestFailure: intake.failure,
    logFailure: tee.logFailure,
    unstored: outageError(kept),
    stopReason: signal?.reason,
  });
  if (result.stdoutForced) {
    log.warn('the CLI exited but its stdout stayed open; closed it', { session: sessionId });
  }
  return { result, ...verdict, intake };
}
