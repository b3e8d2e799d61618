/**
 * The pinned Claude CLI as a gateway backend: `claude -p --output-format json --model M
 * [--json-schema S]`, the prompt on stdin, spawned like a session (the same environment
 * allow-list, its own process group, a timeout) but with no tools, no hooks (a user's own
 * UserPromptSubmit hook would post the job back to watchkeeper) and no transcript. With a schema
 * the CLI offers the model a StructuredOutput tool, checks the answer itself (retrying up to five
 * times) and prints it as `structured_output`.
 */
import { mkdirSync } from 'node:fs';

import { AppError } from '../errors.js';
import { childEnv } from '../process/child-env.js';
import { runCliProcess } from '../process/cli-process.js';
import type { Backend, BackendAnswer, BackendRequest, ChatMessage } from './types.js';

export interface CliBackendOptions {
  bin: string;
  workdir: string;
  /** The parent environment the allow-list picks from, the operator's extra names, overrides. */
  env: Record<string, string | undefined>;
  extraEnv: readonly string[];
  setEnv?: Record<string, string>;
  killGraceMs: number;
  stdoutGraceMs: number;
}

const MAX_STDOUT = 8 * 1024 * 1024;
const STDERR_HEAD = 300;

/** One prompt for the CLI: a single user turn as it is, an exchange as a labelled transcript. */
export function cliPrompt(messages: readonly ChatMessage[]): string {
  if (messages.length === 1 && messages[0]!.role === 'user') return messages[0]!.content;
  return messages
    .map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content}`)
    .join('\n\n');
}

export function cliGatewayArgs(r: BackendRequest): string[] {
  return [
    '-p',
    '--output-format',
    'json',
    '--model',
    r.model,
    '--tools',
    '',
    '--permission-mode',
    'dontAsk',
    '--no-session-persistence',
    '--settings',
    '{"disableAllHooks":true}',
    // Replaces the CLI's own long system prompt: a gateway job is not a coding session.
    '--system-prompt',
    r.system ?? 'Answer the request.',
    ...(r.jsonSchema ? ['--json-schema', JSON.stringify(r.jsonSchema)] : []),
  ];
}

interface CliResult {
  type?: string;
  subtype?: string;
  is_error?: boolean;
  result?: unknown;
  structured_output?: unknown;
  total_cost_usd?: unknown;
  usage?: Record<string, unknown>;
  modelUsage?: Record<string, unknown>;
  errors?: unknown;
  api_error_status?: unknown;
}

/** The result object: the last stdout line that parses as one (other lines are skipped). */
export function parseCliResult(stdout: string): CliResult | null {
  const lines = stdout.split('\n').filter((l) => l.trimStart().startsWith('{'));
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    try {
      const value = JSON.parse(lines[i]!) as CliResult;
      if (value && value.type === 'result') return value;
    } catch {
      // not the result line
    }
  }
  return null;
}

function tokens(usage: Record<string, unknown> | undefined, ...keys: string[]): number | null {
  if (!usage) return null;
  let total = 0;
  let seen = false;
  for (const k of keys) {
    const v = usage[k];
    if (typeof v === 'number') {
      total += v;
      seen = true;
    }
  }
  return seen ? Math.round(total) : null;
}

export function createCliBackend(o: CliBackendOptions): Backend {
  let workdirReady = false;
  return {
    name: 'cli',
    async call(r: BackendRequest): Promise<BackendAnswer> {
      if (!workdirReady) {
        // The sessions' working directory: kept apart so no CLAUDE.md is picked up by accident.
        mkdirSync(o.workdir, { recursive: true });
        workdirReady = true;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let stderr = '';
      const env = childEnv({
        parent: o.env,
        extra: o.extraEnv,
        // No title requests, update checks or telemetry for a one-shot job.
        set: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ...o.setEnv },
      });
      const run = await runCliProcess({
        bin: o.bin,
        args: cliGatewayArgs(r),
        env,
        cwd: o.workdir,
        timeoutMs: r.timeoutMs,
        killGraceMs: o.killGraceMs,
        stdoutGraceMs: o.stdoutGraceMs,
        input: cliPrompt(r.messages),
        ...(r.signal ? { signal: r.signal } : {}),
        onStdout: (chunk) => {
          if (size + chunk.length <= MAX_STDOUT) chunks.push(chunk);
          size += chunk.length;
        },
        onStderr: (chunk) => {
          if (stderr.length < STDERR_HEAD) stderr += chunk.toString('utf8');
        },
      });
      if (run.spawnError) {
        throw new AppError(
          'io_failed',
          `the Claude CLI (${o.bin}) cannot be started: ${run.spawnError}`,
          {
            data: { retryable: false },
          },
        );
      }
      if (run.stopped) {
        throw new AppError('io_failed', 'cancelled: watchkeeper is shutting down', {
          data: { retryable: false },
        });
      }
      if (run.timedOut) {
        throw new AppError(
          'io_failed',
          `the Claude CLI gave no answer within ${r.timeoutMs / 1000}s`,
          {
            data: { retryable: false, timedOut: true },
          },
        );
      }
      const result = parseCliResult(Buffer.concat(chunks).toString('utf8'));
      if (!result) {
        const why = stderr.trim().replace(/\s+/g, ' ').slice(0, STDERR_HEAD);
        throw new AppError(
          'io_failed',
          `the Claude CLI exited with ${run.exitCode ?? run.signal} and printed no result${why ? `: ${why}` : ''}`,
          { data: { retryable: false } },
        );
      }
      const model =
        Object.keys(result.modelUsage ?? {})[0] ?? (typeof r.model === 'string' ? r.model : null);
      const cost = typeof result.total_cost_usd === 'number' ? result.total_cost_usd : null;
      const usage = {
        model,
        inputTokens: tokens(
          result.usage,
          'input_tokens',
          'cache_creation_input_tokens',
          'cache_read_input_tokens',
        ),
        outputTokens: tokens(result.usage, 'output_tokens'),
        costUsd: cost,
      };
      if (result.is_error) {
        const errors = Array.isArray(result.errors) ? result.errors.join('; ') : '';
        const status = typeof result.api_error_status === 'number' ? result.api_error_status : null;
        const message = `the Claude CLI ended with ${result.subtype ?? 'an error'}${errors ? `: ${errors}` : typeof result.result === 'string' ? `: ${result.result.slice(0, 300)}` : ''}`;
        throw new AppError('io_failed', message, {
          data: {
            retryable: status !== null && (status === 429 || status >= 500),
            invalidOutput: result.subtype === 'error_max_structured_output_retries',
            ...usage,
          },
        });
      }
      return {
        text: typeof result.result === 'string' ? result.result : '',
        ...(r.jsonSchema && result.structured_output !== undefined
          ? { json: result.structured_output }
          : {}),
        ...usage,
      };
    },
  };
}
