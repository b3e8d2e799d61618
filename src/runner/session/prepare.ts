/**
 * Everything a session needs before the CLI runs: the prompt, the hook registration, the
 * settings and the appended system prompt, written to the session's input folder. What it
 * acquires goes into `held` at once, so the runner releases it whatever fails next.
 */
import { mkdirSync, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

import type { Config } from '../../config/index.js';
import { rejectControlCharacters } from '../../memory/validate.js';
import {
  allowedAt,
  discoverRunbooks,
  formatIssue,
  runbooksSection,
  withRepositoryServers,
} from '../../runbooks/index.js';
import { hookSettings, memoryServerConfig } from '../cli-args.js';
import type { HookRegistration } from '../hook-server.js';
import { buildSessionContext } from '../session-context.js';
import { type SessionFiles, writeSessionFiles } from '../session-files.js';
import type { SessionRequest, SessionRunnerDeps, Tier } from './request.js';

/** What a session holds until it ends: released in the runner's `finally`. */
export interface Held {
  files: SessionFiles | null;
  hook: HookRegistration | null;
  stderrLog: WriteStream | null;
}

export function releaseHeld(held: Held): void {
  if (held.stderrLog && !held.stderrLog.closed) held.stderrLog.destroy();
  held.files?.remove();
  held.hook?.release();
}

/** A tier's prompt file; operator text, so control characters are refused (CRLF is fine). */
async function readPromptFile(runner: Config['runner'], tier: Tier): Promise<string> {
  const file = runner.tiers[tier].promptFile;
  const text = (await readFile(file, 'utf8')).replace(/\r\n/g, '\n');
  rejectControlCharacters(`prompt file ${file} (WATCHKEEPER_TIER${tier}_PROMPT)`, text);
  return text;
}

async function readSettingsFile(runner: Config['runner']): Promise<Record<string, unknown>> {
  if (!runner.settingsFile) return {};
  const parsed = JSON.parse(await readFile(runner.settingsFile, 'utf8')) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${runner.settingsFile} must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

export interface Preparation {
  deps: SessionRunnerDeps;
  req: SessionRequest;
  sessionId: number;
  requestedAt: number;
  memoryBlock: string;
  cooldownBlock: string;
  filesRoot: string;
  /** Clears what a killed predecessor left in the input folders (once per runner). */
  clearStaleFiles: () => void;
  held: Held;
}

/** The prompt and the session's input files; throws what keeps the session from starting. */
export async function prepareSession(
  p: Preparation,
): Promise<{ prompt: string; files: SessionFiles }> {
  const { deps, req, sessionId, held } = p;
  const { config } = deps;
  const runner = config.runner;
  const prompt = req.prompt ?? (await readPromptFile(runner, req.tier));
  held.hook = deps.hookServer ? await deps.hookServer.register(sessionId) : null;
  const settings = hookSettings(
    await readSettingsFile(runner),
    process.execPath,
    held.hook,
    config.runbooks.reposDir !== null,
  );
  mkdirSync(runner.workdir, { recursive: true });
  // Read afresh for every session: a repository mounted since the last chain is in this one.
  const runbooks = await discoverRunbooks({ reposDir: config.runbooks.reposDir });
  const mcp = withRepositoryServers(
    memoryServerConfig(config, { sessionId, tier: req.tier }, process.execPath),
    runbooks.mcpServers,
  );
  const problems = [...new Set([...runbooks.warnings, ...mcp.issues].map(formatIssue))];
  if (problems.length > 0) {
    deps.log.warn('runbooks: some files were not used as they are (watchkeeper runbooks lint)', {
      session: sessionId,
      problems: problems.slice(0, 5),
    });
  }
  const appendSystemPrompt = buildSessionContext({
    sessionId,
    tier: req.tier,
    maxTier: runner.maxTier,
    trigger: req.trigger,
    dryRun: runner.dryRun,
    now: p.requestedAt,
    memoryBlock: p.memoryBlock,
    runbooksBlock: runbooksSection(
      allowedAt(runbooks, req.tier),
      req.tier,
      config.runbooks.budgets[req.tier],
    ),
    cooldownBlock: p.cooldownBlock,
    handoff: req.handoff,
    alert: req.alert,
  });
  // Exactly what the CLI is handed, for the session page.
  deps.stores.sessionRecords.setSystemPrompt(sessionId, appendSystemPrompt);
  p.clearStaleFiles();
  const files = writeSessionFiles(p.filesRoot, sessionId, {
    systemPrompt: appendSystemPrompt,
    settings,
    mcpConfig: mcp.config,
  });
  held.files = files;
  return { prompt, files };
}
