/** @module gateway: the one model gateway (CLI, Anthropic, OpenAI-compatible backends). */
import type { Config } from '../config/index.js';
import { createAnthropicBackend } from './anthropic-backend.js';
import { createCliBackend } from './cli-backend.js';
import { createOpenAiBackend } from './openai-backend.js';
import type { Backend } from './types.js';

export { anthropicModel } from './anthropic-backend.js';
export { cliGatewayArgs, cliPrompt, parseCliResult } from './cli-backend.js';
export { createGateway, type Gateway, type GatewayDeps } from './gateway.js';
export { checkJsonSchema, type JsonSchema } from './json-schema-check.js';
export { chatEndpoint } from './openai-backend.js';
export { createMemoryJudge, JUDGE_JOB_KIND, type MemoryJudgeOptions } from './memory-judge.js';
export { costOf } from './prices.js';
export { parseModelJson, toJsonSchema, validateOutput } from './schema.js';
export {
  type Backend,
  type BackendAnswer,
  type BackendRequest,
  type ChatMessage,
  type FailedOutcome,
  type GatewayJob,
  type GatewayResult,
  type GatewayState,
  type JobKind,
} from './types.js';

/**
 * The backend the config names, or null when it is off. The CLI backend runs the same binary,
 * working directory and environment allow-list as sessions; `setEnv` goes on top (the demo
 * points ANTHROPIC_BASE_URL at the simulated model).
 */
export function createBackend(
  config: Pick<Config, 'gateway' | 'runner'>,
  env: Record<string, string | undefined>,
  setEnv: Record<string, string> = {},
): Backend | null {
  const g = config.gateway;
  switch (g.backend) {
    case 'off':
      return null;
    case 'cli':
      return createCliBackend({
        bin: config.runner.claudeBin,
        workdir: config.runner.workdir,
        env,
        extraEnv: config.runner.childEnv,
        setEnv,
        killGraceMs: config.runner.killGraceMs,
        stdoutGraceMs: config.runner.stdoutGraceMs,
      });
    case 'anthropic':
      return createAnthropicBackend({ url: g.url!, key: g.key! });
    case 'openai':
      return createOpenAiBackend({ url: g.url!, key: g.key });
  }
}
