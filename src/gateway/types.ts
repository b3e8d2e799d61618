/** The model gateway's one interface: a job in, text or validated JSON out, with what it cost. */
import type { z } from 'zod';

import type { JobFinish } from '../db/index.js';
import type { JsonSchema } from './json-schema-check.js';

/**
 * What a job is for; each kind has its own model. Later jobs (span summaries, HyDE, idea
 * extraction) add kinds; a kind without a model of its own uses the summary model.
 */
export type JobKind = 'gate' | 'extract' | 'summary' | (string & {});

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface GatewayJob<T = unknown> {
  kind: JobKind;
  /** Instructions (the system prompt). */
  system?: string;
  /** One user turn; or `messages` for a whole exchange. */
  prompt?: string;
  messages?: ChatMessage[];
  /** Asks for JSON that fits: a zod schema (typed result) or a plain JSON schema. */
  schema?: z.ZodType<T> | JsonSchema;
  /** Overrides the kind's configured model (never opus). */
  model?: string;
  /** What the job is for, kept with its record ("conversation c42 summary #3"). */
  ref?: string;
  maxTokens?: number;
  /** Overrides the gateway's deadline per attempt and its retries (a job a caller waits on). */
  timeoutMs?: number;
  retries?: number;
}

/** How a job ended when it did not succeed. */
export type FailedOutcome = 'failed' | 'invalid_output' | 'timed_out' | 'unavailable';

/** What a finished job cost, as the job's row records it (`JobFinish` in src/db). */
type JobCost = { jobId: number } & Pick<
  JobFinish,
  'model' | 'inputTokens' | 'outputTokens' | 'costUsd' | 'durationMs' | 'attempts'
>;

export type GatewayResult<T = unknown> =
  | (JobCost & { ok: true; text: string; json: T | null })
  | (JobCost & { ok: false; outcome: FailedOutcome; error: string });

/** What a backend is asked: the model resolved, the schema as JSON Schema. */
export interface BackendRequest {
  model: string;
  system: string | null;
  messages: ChatMessage[];
  jsonSchema: JsonSchema | null;
  maxTokens: number;
  timeoutMs: number;
  /** Aborted when the gateway shuts down: the call ends at once. */
  signal?: AbortSignal;
}

export interface BackendAnswer {
  text: string;
  /** Structured output the backend parsed itself (the CLI's `structured_output`). */
  json?: unknown;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
}

/**
 * One backend. It throws AppError `io_failed` with `data.retryable` (a 429, a 5xx, the network)
 * and `data.timedOut`; `data.invalidOutput` when the model gave no output that fits the schema.
 */
export interface Backend {
  name: 'cli' | 'anthropic' | 'openai';
  call(request: BackendRequest): Promise<BackendAnswer>;
}

export interface GatewayState {
  backend: string;
  available: boolean;
  /** Why no job can run (no model configured), when unavailable. */
  offReason: string | null;
  models: Record<string, string>;
  dailyBudgetUsd: number;
  /** What this instance spent today (UTC). */
  spentTodayUsd: number;
  /** The cap on the whole fleet's spending per day, null without one. */
  fleetBudgetUsd: number | null;
  /** What every instance spent today, null without a fleet cap. */
  fleetSpentTodayUsd: number | null;
  /** True while either budget is spent: new jobs wait for the next day. */
  budgetReached: boolean;
  running: number;
  waiting: number;
}
