/**
 * One tier's session: decay and assemble the context, create the session row, spawn the CLI,
 * tee its stdout (raw bytes to the session log, typed messages to the ingest path and the live
 * feed), and fill the row from the result line. A failed run is a session row with a status,
 * never an exception; everything the model said before a crash stays stored.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Clock } from '../clock.js';
import { type Config, hasModelCredential } from '../config/index.js';
import {
  type DatabaseOutage,
  probeDatabase,
  type SessionStatus,
  type SessionTrigger,
  type Stores,
} from '../db/index.js';
import type { Knowledge } from '../knowledge/index.js';
import type { Logger } from '../log.js';
import { rejectControlCharacters } from '../memory/validate.js';
import { resultError, StreamParser } from '../stream/index.js';
import { childEnv } from '../process/child-env.js';
import { type CliProcessResult, runCliProcess } from '../process/cli-process.js';
import { cliArgs, dryRunTools, hookSettings, memoryServerConfig } from './cli-args.js';
import type { HookRegistration, HookServer } from './hook-server.js';
import { currentCooldowns } from './cooldown-now.js';
import { formatCooldownContext } from './cooldown-policy.js';
import { createSessionIngest, type EscalationRequest, transcriptFields } from './ingest.js';
import { createMarkerOutbox, outageError } from './marker-outbox.js';
import { recordNowOrWhenBack } from './unstored-session.js';
import { startHeartbeat } from './lease.js';
import type { SessionFeed } from './live-feed.js';
import { createSessionTee } from './raw-log.js';
import { emitAlert, type OnAlert } from './alerts.js';
import { recordHealth } from './service-health.js';
import { buildSessionContext, type Handoff } from './session-context.js';
import {
  clearSessionFiles,
  type SessionFiles,
  sessionFilesRoot,
  writeSessionFiles,
} from './session-files.js';

export type Tier = 1 | 2 | 3;

export interface SessionRequest {
  trigger: SessionTrigger;
  tier: Tier;
  /** The prompt text; when null the tier's prompt file is read. */
  prompt: string | null;
  parentSessionId: number | null;
  handoff: Handoff | null;
  alert: string | null;
  /** Told the session id as soon as its row exists (before the CLI runs). */
  onStarted?: (sessionId: number) => void;
}

export interface SessionOutcome {
  sessionId: number;
  status: SessionStatus;
  error: string | null;
  finalText: string | null;
  escalations: EscalationRequest[];
}

export interface SessionRunnerDeps {
  /** Told of critical events and of sessions that failed or timed out (notifications). */
  onAlert?: OnAlert;
  config: Config;
  stores: Stores;
  knowledge: Knowledge;
  clock: Clock;
  feed: SessionFeed;
  /** Answers the session's PostToolUse hook with relevant memories; none: no such hook. */
  hookServer?: HookServer;
  log: Logger;
  /** The environment the child's allow-list is taken from. */
  env: Record<string, string | undefined>;
  /** Extra variables for the child (demo mode points ANTHROPIC_BASE_URL at the simulator). */
  childEnvOverrides?: Record<string, string>;
  /** Sessions against the simulated model are marked as such. */
  simulated?: boolean;
  /** Observes the time from the run request to the CLI spawn (for the overhead benchmark). */
  onSpawn?: (sessionId: number, requestedAt: number, spawnedAt: number) => void;
  /**
   * Told once a session's row and log are final (serve indexes the log into the memory graph
   * in the background). Must return at once; what it throws is logged, never the session's.
   */
  onSessionEnd?: (sessionId: number) => void;
  /** The process's record of a lost database, shared by its background loops (heartbeats). */
  outage?: DatabaseOutage;
}

const STDERR_TAIL = 4000;
// What the CLI prints when it has no credential ("Not logged in · Please run /login").
const LOGIN_FAILURE = /not logged in|\/login|log ?in\b|authenticat|api key|credential/i;
const NO_CREDENTIAL =
  'no model credential is configured: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN, or ' +
  "ANTHROPIC_AUTH_TOKEN) in watchkeeper's environment and restart it";
const MAX_STDERR_LOG = 16 * 1024 * 1024;

function durationText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

/** What triggered the session, as the query of its memory block. */
function triggerText(req: SessionRequest): string | null {
  if (req.alert) return req.alert;
  if (req.handoff) {
    const events = req.handoff.chainEvents
      .slice(0, 20)
      .map((e) => `${e.service ?? ''} ${e.message.slice(0, 300)}`);
    return [req.handoff.reason, ...events].join('\n');
  }
  if (req.trigger === 'manual' || req.trigger === 'api') return req.prompt;
  return null;
}

function statusOf(r: CliProcessResult, resultOk: boolean): SessionStatus {
  if (r.stopped) return 'stopped';
  if (r.timedOut) return 'timed_out';
  return resultOk && r.exitCode === 0 ? 'completed' : 'failed';
}

export function createSessionRunner(deps: SessionRunnerDeps) {
  const { config, stores, knowledge, clock, feed, log } = deps;
  const runner = config.runner;

  const filesRoot = sessionFilesRoot(config.dataDir);
  // Input folders a killed predecessor left are cleared once, before this runner's first session
  // (the runner lock keeps a second runner off this data folder).
  let staleFilesCleared = false;

  /** A tier's prompt file; operator text, so control characters are refused (CRLF is fine). */
  async function readPromptFile(tier: Tier): Promise<string> {
    const file = runner.tiers[tier].promptFile;
    const text = (await readFile(file, 'utf8')).replace(/\r\n/g, '\n');
    rejectControlCharacters(`prompt file ${file} (WATCHKEEPER_TIER${tier}_PROMPT)`, text);
    return text;
  }

  async function readSettingsFile(): Promise<Record<string, unknown>> {
    if (!runner.settingsFile) return {};
    const parsed = JSON.parse(await readFile(runner.settingsFile, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`${runner.settingsFile} must hold a JSON object`);
    }
    return parsed as Record<string, unknown>;
  }

  return async function runSession(
    req: SessionRequest,
    signal?: AbortSignal,
  ): Promise<SessionOutcome> {
    const requestedAt = clock.now();
    const tierConfig = runner.tiers[req.tier];
    const memory = await knowledge.injection.build(
      { trigger: triggerText(req) },
      tierConfig.memoryBudget,
    );
    const cooldownBlock = formatCooldownContext(
      currentCooldowns(stores, config.cooldowns, requestedAt, config.fleet.cooldownServices),
      config.cooldowns,
    );
    const sessionId = stores.sessions.start({
      trigger: req.trigger,
      tier: req.tier,
      model: tierConfig.model,
      prompt: req.prompt,
      parentSessionId: req.parentSessionId,
      startedAt: requestedAt,
      simulated: deps.simulated ?? false,
    });
    knowledge.injection.record(sessionId, memory.injected);
    const fail = (error: string, logMessage: string): SessionOutcome => {
      stores.sessions.finish(sessionId, { status: 'failed', endedAt: clock.now(), error });
      feed.close(sessionId, 'failed');
      log.warn(logMessage, { session: sessionId, error });
      emitAlert(
        deps.onAlert,
        { kind: 'session_ended', status: 'failed', error, sessionId, tier: req.tier },
        log,
      );
      return { sessionId, status: 'failed', error, finalText: null, escalations: [] };
    };

    let files: SessionFiles | null = null;
    let hook: HookRegistration | null = null;
    let stderrLog: WriteStream | null = null;
    // The session's lease: other instances mark it interrupted if this process stops beating.
    let stopHeartbeat: (() => void) | null = null;
    let heartbeatHandedOff = false;
    const beatNow = () => {
      try {
        stores.sessions.heartbeat(sessionId, clock.now());
      } catch {
        // the next tick tries again
      }
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
      stores.sessions.setLogPath(sessionId, logRelative);
      feed.open(sessionId);
      req.onStarted?.(sessionId);
      log.info('session started', {
        session: sessionId,
        tier: req.tier,
        model: tierConfig.model,
        trigger: req.trigger,
      });

      let prompt: string;
      try {
        prompt = req.prompt ?? (await readPromptFile(req.tier));
        hook = deps.hookServer ? await deps.hookServer.register(sessionId) : null;
        const settings = hookSettings(await readSettingsFile(), process.execPath, hook);
        mkdirSync(runner.workdir, { recursive: true });
        const appendSystemPrompt = buildSessionContext({
          sessionId,
          tier: req.tier,
          maxTier: runner.maxTier,
          trigger: req.trigger,
          dryRun: runner.dryRun,
          now: requestedAt,
          memoryBlock: memory.text,
          cooldownBlock,
          handoff: req.handoff,
          alert: req.alert,
        });
        // Exactly what the CLI is handed, for the session page.
        stores.sessionRecords.setSystemPrompt(sessionId, appendSystemPrompt);
        if (!staleFilesCleared) {
          clearSessionFiles(filesRoot);
          staleFilesCleared = true;
        }
        files = writeSessionFiles(filesRoot, sessionId, {
          systemPrompt: appendSystemPrompt,
          settings,
          mcpConfig: memoryServerConfig(config, { sessionId, tier: req.tier }, process.execPath),
        });
      } catch (err) {
        return fail(
          `cannot prepare the session: ${(err as Error).message}`,
          'session failed before the CLI ran',
        );
      }
      const env = childEnv({
        parent: deps.env,
        extra: runner.childEnv,
        set: {
          WATCHKEEPER_DATA_DIR: config.dataDir,
          WATCHKEEPER_SESSION_ID: String(sessionId),
          WATCHKEEPER_TIER: String(req.tier),
          // The guard (`watchkeeper hook pre-tool-use`) refuses every restart on a dry run.
          WATCHKEEPER_DRY_RUN: String(runner.dryRun),
          // What the operator lets the guard pass (aliases, interpreters that start processes).
          WATCHKEEPER_GUARD_ALLOW_INTERPRETERS: config.guard.interpreters.join(','),
          WATCHKEEPER_GUARD_ALLOW_ALIASES: String(config.guard.aliases),
          WATCHKEEPER_GUARD_ALLOW_HOOKS: (config.guard.hooks ?? []).join(','),
          WATCHKEEPER_RESTART_LIMIT: String(config.cooldowns.restart.limit),
          WATCHKEEPER_RESTART_WINDOW: `${config.cooldowns.restart.windowMs}ms`,
          WATCHKEEPER_REDEPLOY_LIMIT: String(config.cooldowns.redeployment.limit),
          WATCHKEEPER_REDEPLOY_WINDOW: `${config.cooldowns.redeployment.windowMs}ms`,
          // The hook records refused attempts as notifications, de-duplicated like the rest.
          WATCHKEEPER_NOTIFY_DEDUP_WINDOW: `${config.notifications.dedupWindowMs}ms`,
          // The hook counts this instance's actions, and the fleet's on the shared services,
          // in the same database as this process.
          WATCHKEEPER_INSTANCE: config.fleet.instance,
          WATCHKEEPER_FLEET_COOLDOWN_SERVICES: config.fleet.cooldownServices.join(','),
          ...(config.fleet.databaseUrl
            ? { WATCHKEEPER_DATABASE_URL: config.fleet.databaseUrl }
            : {}),
          ...deps.childEnvOverrides,
        },
      });
      const args = cliArgs({
        // A dry run gets the read-only list at every tier, however the run was started.
        tier: runner.dryRun ? dryRunTools(tierConfig, runner.tiers[1]) : tierConfig,
        runner,
        systemPromptFile: files.systemPromptFile,
        settingsFile: files.settingsFile,
        mcpConfigFile: files.mcpConfigFile,
      });

      const stderrOut = createWriteStream(join(config.sessionsDir, `${sessionId}.stderr.log`));
      stderrLog = stderrOut;
      // The stderr copy is a convenience: a failure to write it is logged, never fatal.
      stderrOut.on('error', (err) =>
        log.warn('writing the stderr log failed', { session: sessionId, error: err }),
      );
      let stderrBytes = 0;
      let stderrTail = '';
      let ingestFailure: string | null = null;
      // Markers written while the database is unreachable are held and written when it returns.
      const probe = () => probeDatabase(stores.db);
      const outbox = createMarkerOutbox({
        sessionId,
        log,
        probe,
        onFailure: (err) => {
          ingestFailure ??= (err as Error).message;
          log.error('ingest failed', { session: sessionId, error: err as Error });
        },
        // The lease may be close to expiring after a long outage: renew it at once.
        onRestored: () => beatNow(),
      });
      const ingest = createSessionIngest({
        stores,
        knowledge,
        clock,
        sessionId,
        tier: req.tier,
        outbox,
        ...(deps.onAlert ? { onAlert: deps.onAlert } : {}),
      });
      const parser = new StreamParser({
        maxLineBytes: config.maxLineBytes,
        onMessage: (message, bytes) => {
          try {
            ingest.onMessage(message);
          } catch (err) {
            // Keep reading: the raw log has the line, and the failure is reported on the session.
            ingestFailure ??= (err as Error).message;
            log.error('ingest failed', { session: sessionId, error: err as Error });
          }
          feed.publish(sessionId, { kind: 'message', message }, bytes);
        },
      });
      const tee = createSessionTee(join(config.dataDir, logRelative), parser);

      const result = await runCliProcess({
        bin: runner.claudeBin,
        args,
        env,
        cwd: runner.workdir,
        timeoutMs: runner.sessionTimeoutMs,
        killGraceMs: runner.killGraceMs,
        stdoutGraceMs: runner.stdoutGraceMs,
        input: prompt,
        ...(signal ? { signal } : {}),
        onSpawn: (pid) => {
          // Detached: the CLI leads its own group, so its pid is the group id a later start-up
          // ends if this process is killed before the session finishes.
          stores.sessions.setPgid(sessionId, pid);
          deps.onSpawn?.(sessionId, requestedAt, clock.now());
        },
        onStdout: (chunk) => tee.write(chunk),
        onStderr: (chunk) => {
          if (stderrBytes < MAX_STDERR_LOG) stderrOut.write(chunk);
          stderrBytes += chunk.length;
          stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
          feed.publish(sessionId, { kind: 'stderr', text: chunk.toString('utf8') }, chunk.length);
        },
      });
      await tee.close();
      await ingest.settled();
      ingestFailure ??= ingest.failure;
      if (tee.logFailure)
        log.error('writing the session log failed', { session: sessionId, error: tee.logFailure });
      await new Promise<void>((resolve) => stderrOut.end(resolve));
      ingest.reportStreamIssues(parser.stats, config.maxLineBytes);
      // A last try for what the outbox holds; what it still holds is recorded when it can be.
      await outbox.flush();
      outbox.stop();
      const kept = outbox.state();

      const t = ingest.transcript;
      const r = t.result;
      const resultOk = r !== null && r.subtype === 'success' && !r.isError;
      let status = statusOf(result, resultOk);
      let error: string | null = null;
      if (status === 'stopped') error = 'stopped by the operator';
      else if (status === 'timed_out')
        error = `timed out after ${durationText(runner.sessionTimeoutMs)}`;
      else if (status === 'failed') {
        error =
          result.spawnError !== null
            ? `cannot start the Claude CLI (${runner.claudeBin}): ${result.spawnError}`
            : r && !resultOk
              ? resultError(r)
              : stderrTail.trim() ||
                (result.signal
                  ? `the CLI was killed by ${result.signal}`
                  : `the CLI exited with code ${result.exitCode}`);
        if (!r && result.spawnError === null) error = `${error} (no result line)`;
        if (result.spawnError === null && !hasModelCredential(env) && LOGIN_FAILURE.test(error)) {
          // The CLI's own advice ("Please run /login") does not apply to an unattended sidecar.
          error = `${NO_CREDENTIAL} (the Claude CLI said: ${error})`;
        }
      }
      if (ingestFailure)
        error = `${error ? `${error}; ` : ''}storing markers failed: ${ingestFailure}`;
      if (tee.logFailure)
        error = `${error ? `${error}; ` : ''}writing the session log failed: ${tee.logFailure}`;
      if (result.stdoutForced) {
        log.warn('the CLI exited but its stdout stayed open; closed it', { session: sessionId });
      }
      const unstored = outageError(kept);
      if (unstored) {
        if (status !== 'stopped' && status !== 'timed_out') status = 'failed';
        error = `${error ? `${error}; ` : ''}${unstored}`;
      }
      const endedAt = clock.now();
      const finished = { status, endedAt, exitCode: result.exitCode, error };
      const recordRow = () => {
        stores.sessions.finish(sessionId, { ...finished, ...transcriptFields(t, parser.stats) });
        recordHealth(deps, sessionId, ingest.healthMarkers, t.finalText, clock.now());
      };
      const sessionEnded = () => {
        try {
          deps.onSessionEnd?.(sessionId);
        } catch (err) {
          log.warn('the session-end callback failed', { session: sessionId, error: err as Error });
        }
      };
      // Markers still held, or the row's own write met the outage: recorded in the background
      // when the database returns; the lease is kept alive until then.
      heartbeatHandedOff = recordNowOrWhenBack({
        sessionId,
        outbox,
        probe,
        notePath: join(config.sessionsDir, `${sessionId}.unstored.ndjson`),
        status,
        error: error ?? '',
        endedAt,
        record: recordRow,
        finish: () => {
          recordRow();
          sessionEnded();
        },
        done: () => stopHeartbeat?.(),
        log,
      });
      feed.close(sessionId, status);
      emitAlert(
        deps.onAlert,
        { kind: 'session_ended', status, error, sessionId, tier: req.tier },
        log,
      );
      if (!heartbeatHandedOff) sessionEnded();
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
      if (stderrLog && !stderrLog.closed) stderrLog.destroy();
      files?.remove();
      hook?.release();
    }
  };
}

export type RunSession = ReturnType<typeof createSessionRunner>;
