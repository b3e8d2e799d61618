/**
 * The process's logger: pino, one JSON object per line (`level`, `time`, `msg` and the fields),
 * or pino-pretty's readable lines for a person at a terminal. Secrets are kept out twice: callers
 * never log them, and the redact paths, the value scrub and the configuration's credentials (in
 * every form: plain, percent-encoded, base64) masked in each line catch a slip.
 */
import { createRequire } from 'node:module';

import pino from 'pino';
import type PinoPretty from 'pino-pretty';

import { AppError } from './errors.js';
import { redact } from './secrets.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFormat = 'json' | 'pretty';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface LoggerOptions {
  /** `pretty` for a terminal; JSON lines otherwise (the default). */
  format?: LogFormat;
  /** Colours in the pretty format. */
  colorize?: boolean;
  /**
   * The configuration's credentials in every form (`configSecrets`): masked in every line
   * written, whatever field or depth quotes them.
   */
  secrets?: readonly string[];
}

export const REDACTED = '[redacted]';

// Names that hold a secret wherever they appear (two levels deep: a field, or a field of one).
const SECRET_KEYS = [
  'token',
  'authToken',
  'accessToken',
  'apiKey',
  'key',
  'password',
  'secret',
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  'appriseUrls',
  'notifyUrls',
];
const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
];

// A bearer token or the credentials of a URL inside any logged text (an error message that
// quotes a request, a URL with user:password@).
const BEARER = /\b(Bearer\s+)[^\s"',;]+/gi;
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi;

function scrubText(text: string): string {
  return text.replace(BEARER, `$1${REDACTED}`).replace(URL_CREDENTIALS, `$1${REDACTED}@`);
}

function errorFields(err: Error): Record<string, unknown> {
  // An AppError is an expected failure: its message says it all. Anything else is a bug, and
  // the stack is what finds it.
  if (err instanceof AppError) return { type: err.name, code: err.code, message: err.message };
  return { type: err.name, message: err.message, stack: err.stack };
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value instanceof Error) return scrub(errorFields(value), depth);
  if (depth >= 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = scrub(v, depth + 1);
  return out;
}

/**
 * A logger writing each line through `write`. `now` stamps the lines (the injected clock), as
 * an ISO 8601 time in UTC.
 */
/** pino-pretty, loaded only for the pretty format: it costs about 0.1 s of start-up. */
const loadPretty = (): typeof PinoPretty =>
  createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;

export function createLogger(
  level: LogLevel,
  write: (line: string) => void,
  now = () => Date.now(),
  options: LoggerOptions = {},
): Logger {
  const pretty =
    options.format === 'pretty'
      ? loadPretty().prettyFactory({
          colorize: options.colorize ?? false,
          singleLine: true,
          ignore: 'pid,hostname',
          // In UTC with its Z, as the fields' ISO times (a run's `next`) are: one zone per line.
          translateTime: "UTC:yyyy-mm-dd HH:MM:ss.l'Z'",
        })
      : null;
  const secrets = options.secrets ?? [];
  const base = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: () => `,"time":"${new Date(now()).toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
    },
    // A plain synchronous sink: no worker-thread transport, so lines are written in order and
    // none is lost when the process exits.
    // The line as written is what is masked: a secret in any field, at any depth, quoted raw
    // or JSON-escaped.
    {
      write: (line: string) => {
        const safe = secrets.length > 0 ? redact(line, secrets) : line;
        write(pretty ? pretty(safe) : safe);
      },
    },
  );
  const at =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (!base.isLevelEnabled(lvl)) return;
      base[lvl](scrub(fields, 0) as Record<string, unknown>, scrubText(message));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export const silentLogger: Logger = createLogger('silent', () => {});
