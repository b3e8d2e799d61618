/**
 * A finished CLI run's status and error text: what the operator reads on the session page. The
 * CLI's own login advice is replaced by what an unattended sidecar needs, and what could not be
 * stored (markers, the log) is added to the error.
 */
import { hasModelCredential } from '../../config/index.js';
import { SESSION_SHUTDOWN_ERROR, type SessionStatus } from '../../db/index.js';
import type { CliProcessResult } from '../../process/cli-process.js';
import { type ResultMessage, resultError } from '../../stream/index.js';

// What the CLI prints when it has no credential ("Not logged in · Please run /login").
const LOGIN_FAILURE = /not logged in|\/login|log ?in\b|authenticat|api key|credential/i;
const NO_CREDENTIAL =
  'no model credential is configured: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN, or ' +
  "ANTHROPIC_AUTH_TOKEN) in watchkeeper's environment and restart it";

function durationText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

function statusOf(r: CliProcessResult, resultOk: boolean): SessionStatus {
  if (r.stopped) return 'stopped';
  if (r.timedOut) return 'timed_out';
  return resultOk && r.exitCode === 0 ? 'completed' : 'failed';
}

/** The abort reason the scheduler gives when watchkeeper itself shuts down (not the operator). */
export const SHUTDOWN_STOP = 'watchkeeper-shutdown';

const joined = (error: string | null, more: string) => `${error ? `${error}; ` : ''}${more}`;

export function sessionVerdict(v: {
  result: CliProcessResult;
  /** The stream's result line, if one came. */
  resultLine: ResultMessage | null;
  claudeBin: string;
  sessionTimeoutMs: number;
  stderrTail: string;
  env: Record<string, string>;
  ingestFailure: string | null;
  logFailure: string | null;
  /** Why markers are still unstored (the database stayed out of reach), if they are. */
  unstored: string | null;
  /** The abort signal's reason, when the run was stopped. */
  stopReason?: unknown;
}): { status: SessionStatus; error: string | null } {
  const { result, resultLine: r } = v;
  const resultOk = r !== null && r.subtype === 'success' && !r.isError;
  let status = statusOf(result, resultOk);
  let error: string | null = null;
  if (status === 'stopped') {
    error = v.stopReason === SHUTDOWN_STOP ? SESSION_SHUTDOWN_ERROR : 'stopped by the operator';
  } else if (status === 'timed_out') error = `timed out after ${durationText(v.sessionTimeoutMs)}`;
  else if (status === 'failed') {
    error =
      result.spawnError !== null
        ? `cannot start the Claude CLI (${v.claudeBin}): ${result.spawnError}`
        : r && !resultOk
          ? resultError(r)
          : v.stderrTail.trim() ||
            (result.signal
              ? `the CLI was killed by ${result.signal}`
              : `the CLI exited with code ${result.exitCode}`);
    if (!r && result.spawnError === null) error = `${error} (no result line)`;
    if (result.spawnError === null && !hasModelCredential(v.env) && LOGIN_FAILURE.test(error)) {
      // The CLI's own advice ("Please run /login") does not apply to an unattended sidecar.
      error = `${NO_CREDENTIAL} (the Claude CLI said: ${error})`;
    }
  }
  if (v.ingestFailure) error = joined(error, `storing markers failed: ${v.ingestFailure}`);
  if (v.logFailure) error = joined(error, `writing the session log failed: ${v.logFailure}`);
  if (v.unstored) {
    if (status !== 'stopped' && status !== 'timed_out') status = 'failed';
    error = joined(error, v.unstored);
  }
  return { status, error };
}
