import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { systemClock } from '../../src/clock.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { openStores, type Stores } from '../../src/db/index.js';
import type { Embedder } from '../../src/embed/index.js';
import { createKnowledge, type Knowledge, type MemoryService } from '../../src/knowledge/index.js';
import { type Logger, silentLogger } from '../../src/log.js';
import { createChainRunner, type RunChain } from '../../src/runner/chain.js';
import { createHookServer, type HookServer } from '../../src/runner/hook-server.js';
import { SessionFeed } from '../../src/runner/live-feed.js';
import {
  createSessionRunner,
  type RunSession,
  type SessionRunnerDeps,
} from '../../src/runner/session-runner.js';
import { migratedSqliteFile } from './db.js';

export const FAKE_CLAUDE = fileURLToPath(
  new URL('../fixtures/bin/fake-claude.mjs', import.meta.url),
);

export interface RunnerHarness {
  config: Config;
  stores: Stores;
  knowledge: Knowledge;
  keeper: MemoryService;
  hookServer: HookServer;
  feed: SessionFeed;
  runSession: RunSession;
  runChain: RunChain;
  dataDir: string;
  close(): Promise<void>;
}

/** A data folder, the real store and the real runner, pointed at `claudeBin` (the fake CLI by default). */
export function runnerHarness(
  env: Record<string, string> = {},
  extra: Partial<
    Pick<SessionRunnerDeps, 'childEnvOverrides' | 'simulated' | 'onSpawn' | 'onAlert'>
  > & {
    parentEnv?: Record<string, string>;
    /** The knowledge layer's embedder; none (lexical search) unless a test needs one. */
    embedder?: Embedder | null;
    /** Where the session runner logs; silent unless a test reads the log. */
    log?: Logger;
  } = {},
): RunnerHarness {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-runner-'));
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_CLAUDE_BIN: FAKE_CLAUDE,
    WATCHKEEPER_SESSION_TIMEOUT: '20s',
    WATCHKEEPER_KILL_GRACE: '1s',
    WATCHKEEPER_STDOUT_GRACE: '1s',
    // The memory tools' server a session starts matches by what the harness matches by: words
    // alone unless the test gives the harness a model (it would load the model for nothing).
    WATCHKEEPER_EMBEDDINGS: extra.embedder ? 'local' : 'off',
    ...env,
  });
  // A copy of a migrated file, as testApp's stores are, unless the test names another store.
  if (!config.fleet.databaseUrl && !existsSync(config.dbPath)) migratedSqliteFile(config.dbPath);
  const stores = openStores(config.dbPath, { instance: config.fleet.instance });
  const knowledge = createKnowledge({
    stores,
    embedder: extra.embedder ?? null,
    clock: systemClock,
  });
  const hookServer = createHookServer({ tools: knowledge.tools, log: silentLogger });
  const feed = new SessionFeed();
  const runSession = createSessionRunner({
    config,
    stores,
    knowledge,
    hookServer,
    clock: systemClock,
    feed,
    log: extra.log ?? silentLogger,
    env: extra.parentEnv ?? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir },
    ...(extra.childEnvOverrides ? { childEnvOverrides: extra.childEnvOverrides } : {}),
    ...(extra.simulated ? { simulated: true } : {}),
    ...(extra.onSpawn ? { onSpawn: extra.onSpawn } : {}),
    ...(extra.onAlert ? { onAlert: extra.onAlert } : {}),
  });
  const runChain = createChainRunner({
    runSession,
    stores,
    config,
    clock: systemClock,
    log: silentLogger,
  });
  return {
    config,
    stores,
    knowledge,
    keeper: knowledge.memory,
    hookServer,
    feed,
    runSession,
    runChain,
    dataDir,
    close: async () => {
      await hookServer.close();
      stores.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** True while a process with this pid runs (a zombie awaiting its reaper counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Polls until `pid` is gone or `ms` pass (a SIGKILL takes effect asynchronously, and later on a
 * busy machine).
 */
export async function gone(pid: number, ms = 90_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    if (!alive(pid)) return true;
  }
  return !alive(pid);
}
