/**
 * The real Claude CLI (the pinned npm package), started by the real runner through the tee
 * fixture, against the scripted simulated model on loopback: the CLI really runs its tools, the
 * hook and the stream are real; only the model is simulated. Needs dist/ when the session starts
 * `watchkeeper` itself (MCP, hooks).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadConfig } from '../../src/config/index.js';
import type { Embedder } from '../../src/embed/index.js';
import type { Logger } from '../../src/log.js';
import {
  type SimBlock,
  type SimRequest,
  type SimulatedModel,
  startSimulatedModel,
} from '../../src/sim/messages-api.js';
import { runnerHarness, type RunnerHarness } from './runner.js';

const TEE = fileURLToPath(new URL('../fixtures/bin/tee-claude.mjs', import.meta.url));
const REAL_CLAUDE = loadConfig({}).runner.claudeBin;

export const text = (t: string): SimBlock => ({ type: 'text', text: t });
export const bash = (command: string, description = 'run'): SimBlock => ({
  type: 'tool_use',
  name: 'Bash',
  input: { command, description },
});
/** Side requests the CLI makes without tools (titles and the like) get a short answer. */
export const side = (r: SimRequest) => !Array.isArray(r.body.tools) || r.body.tools.length === 0;

export interface RealCli {
  sim: SimulatedModel;
  harness: RunnerHarness;
  close(): Promise<void>;
}

/** A runner harness whose sessions run the real CLI; `script` answers every non-side request. */
export async function startRealCli(
  script: (r: SimRequest) => SimBlock[] | Promise<SimBlock[]>,
  o: { env?: Record<string, string>; embedder?: Embedder; log?: Logger } = {},
): Promise<RealCli> {
  const sim = await startSimulatedModel((r) => (side(r) ? [text('ok')] : script(r)));
  let harness: RunnerHarness;
  try {
    harness = runnerHarness(
      {
        WATCHKEEPER_CLAUDE_BIN: TEE,
        WATCHKEEPER_SESSION_TIMEOUT: '60s',
        WATCHKEEPER_CHILD_ENV: 'REAL_CLAUDE_BIN',
        ...o.env,
      },
      {
        parentEnv: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: mkdtempSync(join(tmpdir(), 'watchkeeper-home-')),
          REAL_CLAUDE_BIN: REAL_CLAUDE,
        },
        childEnvOverrides: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: 'simulated' },
        simulated: true,
        ...(o.embedder ? { embedder: o.embedder } : {}),
        ...(o.log ? { log: o.log } : {}),
      },
    );
  } catch (err) {
    await sim.close();
    throw err;
  }
  return {
    sim,
    harness,
    async close() {
      await harness.close();
      await sim.close();
    },
  };
}
