/**
 * One exit code per kind of outcome, the same for every command (the README's "Exit codes"
 * table): the error codes are mapped here, and nowhere else.
 */
import { type ErrorCode, isAppError } from '../errors.js';

/** Done: what was asked was done (or, with --dry-run, shown). */
export const EXIT_DONE = 0;
/** Failed: the work failed (a session, the database, a check, a verification, nothing by that id). */
export const EXIT_FAILED = 1;
/**
 * Bad usage or bad input, refused before anything changed: an unknown command or flag, a bad
 * value, a bad setting, an input file that is missing, unreadable or malformed.
 */
export const EXIT_BAD_INPUT = 2;

// A Record over every code: a new code does not compile until it is given its kind here.
const BY_CODE: Record<ErrorCode, number> = {
  usage: EXIT_BAD_INPUT,
  invalid_input: EXIT_BAD_INPUT,
  input_unreadable: EXIT_BAD_INPUT,
  config_invalid: EXIT_BAD_INPUT,
  not_found: EXIT_FAILED,
  migration_failed: EXIT_FAILED,
  migration_changed: EXIT_FAILED,
  io_failed: EXIT_FAILED,
  busy: EXIT_FAILED,
  embedding_failed: EXIT_FAILED,
  db_unavailable: EXIT_FAILED,
  unsupported: EXIT_FAILED,
  copy_failed: EXIT_FAILED,
};

/** The exit code of a command that threw `err` (anything but an AppError is a bug: failed). */
export function exitCodeOf(err: unknown): number {
  return isAppError(err) ? BY_CODE[err.code] : EXIT_FAILED;
}
