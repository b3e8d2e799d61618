/**
 * One tier's session: decay and assemble the context, create the session row, spawn the CLI,
 * tee its stdout (raw bytes to the session log, typed messages to the ingest path and the live
 * feed), and fill the row from the result line. A failed run is a session row with a status,
 * never an exception; everything the model said before a crash stays stored.
 */
import { join } from 'node:path';

import { startHeartbeat } from './lease.js';
import { emitAlert } from './alerts.js';
import { clearSessionFiles, sessionFilesRoot } from './session-files.js';
import { runCli } from './session/cli-run.js';
import { failSession, notifySessionEnd, recordSessionRow } from './session/end.js';
import { type Held, prepareSession, releaseHeld } from './session/prepare.js';
import type { SessionOutcome, SessionRequest, SessionRunnerDeps } from './session/request.js';
import { startSession } from './session/start.js';

export type { SessionOutcome, SessionRequest, SessionRunnerDeps, Tier } from './session/request.js';

export function createSessionRunner(deps: SessionRunnerDeps) {
  const { config, stores, clock, feed, log } = deps;

  const filesRoot = sessionFilesRoot(config.dataDir);
  // Input folders a killed predecessor left are cleared once, before this runner's first session
  // (the runner lock keeps a second runner off this data folder).
  let staleFilesCleared = false;
  const clearStaleFiles = () => {
    if (staleFilesCleared) return;
    clearSessionFiles(filesRoot);
    staleFilesCleared = true;
  };

  return async function runSession(
    req: SessionRequest,
    signal?: AbortSignal,
  ): Promise<SessionOutcome> {
    const { sessionId, requestedAt, memoryBlock, cooldownBlock } = await startSession(deps, req);
    const fail = (error: string, logMessage: string) =>
      failSession(deps, req, sessionId, error, logMessage);

    const held: Held = { files: null, hook: null, stderrLog: null };
    // The session's lease: other instances mark it interrupted if this process stops beating.
    let stopHeartbeat: (() => void) | null = null;
    let heartbeatHandedOff = false;
    const beatNow = () => {
      // A failed beat: the next tick tries again.
      stores.sessions.heartbeat(sessionId, clock.now()).catch(() => undefined);
    };
    try {
      stopHeartbeat = startHeartbeat({
        sessions: stores.sessions,
        sessionId,
        clock,
        leaseMs: config.fleet.leaseMs,
        log,
        ...(deps.outage ? { outage: deps.outage } : {}),
      });
      const logRelative = join('sessions', `${sessionId}.ndjson`);
      await stores.sessions.setLogPath(sessionId, logRelative);
      feed.open(sessionId);
      req.onStarted?.(sessionId);
      log.info('session started', {
        session: sessionId,
        tier: req.tier,
        model: config.runner.tiers[req.tier].model,
        trigger: req.trigger,
      });

      let prepared: Awaited<ReturnType<typeof prepareSession>>;
      try {
        prepared = await prepareSession({
          deps,
          req,
          sessionId,
          requestedAt,
          memoryBlock,
          cooldownBlock,
          filesRoot,
          clearStaleFiles,
          held,
        });
      } catch (err) {
        return fail(
          `cannot prepare the session: ${(err as Error).message}`,
          'session failed before the CLI ran',
        );
      }
      const run = await runCli({
        deps,
        req,
        sessionId,
        requestedAt,
        ...prepared,
        logRelative,
        beatNow,
        held,
        signal,
      });
      const { result, status, error } = run;
      const { ingest, parser } = run.intake;
      const t = ingest.transcript;
      heartbeatHandedOff = await recordSessionRow({
        deps,
        sessionId,
        finished: { status, endedAt: clock.now(), exitCode: result.exitCode, error },
        transcript: t,
        stats: parser.stats,
        healthMarkers: ingest.healthMarkers,
        outbox: run.intake.outbox,
        probe: run.intake.probe,
        stopHeartbeat: () => stopHeartbeat?.(),
      });
      feed.close(sessionId, status);
      emitAlert(
        deps.onAlert,
        { kind: 'session_ended', status, error, sessionId, tier: req.tier },
        log,
      );
      if (!heartbeatHandedOff) notifySessionEnd(deps, sessionId);
      log.info('session ended', {
        session: sessionId,
        status,
        exit: result.exitCode ?? result.signal ?? undefined,
        events: ingest.counts.events,
        memories: ingest.counts.memoriesCreated + ingest.counts.memoriesReinforced,
        error: error ?? undefined,
      });
      return {
        sessionId,
        status,
        error,
        finalText: t.finalText,
        escalations: [...ingest.escalations],
      };
    } catch (err) {
      // Whatever throws once the row exists still ends it: a row left `running` is a session
      // that never ends on the dashboard, in `run` and for the recovery at the next start.
      return fail(`the session could not be run: ${(err as Error).message}`, 'session failed');
    } finally {
      if (!heartbeatHandedOff) stopHeartbeat?.();
      releaseHeld(held);
    }
  };
}

export type RunSession = ReturnType<typeof createSessionRunner>;
