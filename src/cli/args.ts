/** Argument parsing for the CLI on node:util parseArgs, with errors that name the argument. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

import { AppError } from '../errors.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export function usageError(message: string): AppError {
  return new AppError('usage', message);
}

/**
 * A subcommand that is not one of `known`: one line naming them, and where the full usage is
 * (`watchkeeper NAME --help`), the same for every command that has subcommands.
 */
export function unknownSubcommand(
  command: string,
  sub: string | undefined,
  known: readonly string[],
): AppError {
  const what =
    sub === undefined ? `${command} needs a command` : `unknown ${command} command "${sub}"`;
  return usageError(`${what}; try ${known.join(', ')} (watchkeeper ${command} --help)`);
}

/** Parses argv strictly: an unknown option or a missing value is a usage error. */
export function parse(argv: string[], options: OptionSpec, maxPositionals = 0): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as Parsed;
  } catch (err) {
    throw usageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  if (parsed.positionals.length > maxPositionals) {
    throw usageError(`unexpected argument "${parsed.positionals[maxPositionals]}"`);
  }
  return parsed;
}

export function str(parsed: Parsed, name: string): string | undefined {
  const v = parsed.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function flag(parsed: Parsed, name: string): boolean {
  return parsed.values[name] === true;
}

/** A whole number in [min, max], from an option or positional named `name`. */
export function toInt(name: string, value: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(value.trim()))
    throw usageError(`${name} must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw usageError(`${name} must be from ${min} to ${max}, got ${n}`);
  return n;
}

/** A tier from --tier: the same words for every command that takes one (and the HTTP API's). */
export function toTier(value: string): 1 | 2 | 3 {
  const t = value.trim();
  if (t !== '1' && t !== '2' && t !== '3')
    throw usageError(`--tier must be 1, 2 or 3, got "${value}"`);
  return Number(t) as 1 | 2 | 3;
}

export function toEnum<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  const lower = value.toLowerCase();
  if (!(allowed as readonly string[]).includes(lower)) {
    throw usageError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return lower as T;
}

/** Memory ids from positionals: at least one, each a positive whole number. */
export function toIds(values: string[]): number[] {
  if (values.length === 0) throw usageError('give at least one memory id');
  return values.map((v) => toInt('memory id', v, 1, Number.MAX_SAFE_INTEGER));
}
