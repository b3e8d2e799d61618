/**
 * One tier's session: decay and assemble the context, create the session row, spawn the CLI,
 * tee its stdout (raw bytes to the session log, typed messages to the ingest path and the live
 * feed), and fill the row from the result line. A failed run is a session row with a status,
 * never an exception; everything the model said before a crash stays stored.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { SessionStatus, SessionTrigger, Stores } from '../db/index.js';
import type { Logger } from '../log.js';
import { StreamParser } from '../stream/index.js';
import { childEnv, cliArgs, hookSettings } from './cli-args.js';
import { type CliProcessResult, runCliProcess } from './cli-process.js';
import { cooldownHorizon, cooldownState, formatCooldownContext } from './cooldown-policy.js';
import { createSessionIngest, type EscalationRequest, transcriptFields } from './ingest.js';
import type { SessionFeed } from './live-feed.js';
import type { MemoryKeeper } from './memory-keeper.js';
import { createSessionTee } from './raw-log.js';
import { buildSessionContext, type Handoff } from './session-context.js';

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
  config: Config;
  stores: Stores;
  keeper: MemoryKeeper;
  clock: Clock;
  feed: SessionFeed;
  log: Logger;
  /** The environment the child's allow-list is taken from. */
  env: Record<string, string | undefined>;
  /** Extra variables for the child (demo mode points ANTHROPIC_BASE_URL at the simulator). */
  childEnvOverrides?: Record<string, string>;
  /** Sessions against the simulated model are marked as such. */
  simulated?: boolean;
  /** Observes the time from the run request to the CLI spawn (for the overhead benchmark). */
  onSpawn?: (sessionId: number, requestedAt: number, spawnedAt: number) => void;
}

const STDERR_TAIL = 4000;
const MAX_STDERR_LOG = 16 * 1024 * 1024;

function durationText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

function statusOf(r: CliProcessResult, resultOk: boolean): SessionStatus {
  if (r.stopped) return 'stopped';
  if (r.timedOut) return 'timed_out';
  return resultOk && r.exitCode === 0 ? 'completed' : 'failed';
}

export function createSessionRunner(deps: SessionRunnerDeps) {
  const { config, stores, keeper, clock, feed, log } = deps;
  const runner = config.runner;

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
    const memory = keeper.buildContext(config.memoryBudget);
    const cooldownBlock = formatCooldownContext(
      cooldownState(
        stores.cooldowns.since(cooldownHorizon(config.cooldowns, requestedAt)),
        config.cooldowns,
        requestedAt,
      ),
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

    const fail = (status: SessionStatus, error: string): SessionOutcome => {
      stores.sessions.finish(sessionId, { status, endedAt: clock.now(), error });
      feed.close(sessionId, status);
      log.warn('session failed before the CLI ran', { session: sessionId, error });
      return { sessionId, status, error, finalText: null, escalations: [] };
    };

    let prompt: string;
    let settings: Record<string, unknown>;
    try {
      prompt = req.prompt ?? (await readFile(tierConfig.promptFile, 'utf8'));
      settings = hookSettings(await readSettingsFile(), process.execPath);
      mkdirSync(runner.workdir, { recursive: true });
    } catch (err) {
      return fail('failed', `cannot prepare the session: ${(err as Error).message}`);
    }

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
    const env = childEnv({
      parent: deps.env,
      extra: runner.childEnv,
      set: {
        WATCHKEEPER_DATA_DIR: config.dataDir,
        WATCHKEEPER_SESSION_ID: String(sessionId),
        WATCHKEEPER_TIER: String(req.tier),
        WATCHKEEPER_RESTART_LIMIT: String(config.cooldowns.restart.limit),
        WATCHKEEPER_RESTART_WINDOW: `${config.cooldowns.restart.windowMs}ms`,
        WATCHKEEPER_REDEPLOY_LIMIT: String(config.cooldowns.redeployment.limit),
        WATCHKEEPER_REDEPLOY_WINDOW: `${config.cooldowns.redeployment.windowMs}ms`,
        ...deps.childEnvOverrides,
      },
    });
    const args = cliArgs({ prompt, tier: tierConfig, appendSystemPrompt, runner, settings });

    const stderrLog = createWriteStream(join(config.sessionsDir, `${sessionId}.stderr.log`));
    let stderrBytes = 0;
    let stderrTail = '';
    const ingest = createSessionIngest({ stores, keeper, clock, sessionId, tier: req.tier });
    let ingestFailure: string | null = null;
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
      ...(signal ? { signal } : {}),
      onSpawn: () => deps.onSpawn?.(sessionId, requestedAt, clock.now()),
      onStdout: (chunk) => tee.write(chunk),
      onStderr: (chunk) => {
        if (stderrBytes < MAX_STDERR_LOG) stderrLog.write(chunk);
        stderrBytes += chunk.length;
        stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
        feed.publish(sessionId, { kind: 'stderr', text: chunk.toString('utf8') }, chunk.length);
      },
    });
    await tee.close();
    if (tee.logFailure)
      log.error('writing the session log failed', { session: sessionId, error: tee.logFailure });
    await new Promise<void>((resolve) => stderrLog.end(resolve));
    ingest.reportStreamIssues(parser.stats, config.maxLineBytes);

    const t = ingest.transcript;
    const r = t.result;
    const resultOk = r !== null && r.subtype === 'success' && !r.isError;
    const status = statusOf(result, resultOk);
    let error: string | null = null;
    if (status === 'stopped') error = 'stopped by the operator';
    else if (status === 'timed_out')
      error = `timed out after ${durationText(runner.sessionTimeoutMs)}`;
    else if (status === 'failed') {
      error =
        result.spawnError !== null
          ? `cannot start the Claude CLI (${runner.claudeBin}): ${result.spawnError}`
          : r && !resultOk
            ? r.errors.length > 0
              ? r.errors.join('; ')
              : (r.result ?? r.subtype)
            : stderrTail.trim() ||
              (result.signal
                ? `the CLI was killed by ${result.signal}`
                : `the CLI exited with code ${result.exitCode}`);
      if (!r && result.spawnError === null) error = `${error} (no result line)`;
    }
    if (ingestFailure)
      error = `${error ? `${error}; ` : ''}storing markers failed: ${ingestFailure}`;
    if (tee.logFailure)
      error = `${error ? `${error}; ` : ''}writing the session log failed: ${tee.logFailure}`;
    if (result.stdoutForced) {
      log.warn('the CLI exited but its stdout stayed open; closed it', { session: sessionId });
    }
    stores.sessions.finish(sessionId, {
      status,
      endedAt: clock.now(),
      exitCode: result.exitCode,
      error,
      ...transcriptFields(t, parser.stats),
    });
    feed.close(sessionId, status);
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
  };
}

export type RunSession = ReturnType<typeof createSessionRunner>;
