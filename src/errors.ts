/** Every failure watchkeeper reports on purpose carries one of these codes. */
export type ErrorCode =
  | 'config_invalid'
  | 'usage'
  | 'not_found'
  | 'invalid_input'
  /** An input file or folder named on the command line is missing or cannot be read. */
  | 'input_unreadable'
  | 'migration_failed'
  | 'migration_changed'
  | 'io_failed'
  | 'busy'
  | 'embedding_failed'
  | 'db_unavailable'
  | 'unsupported'
  | 'copy_failed';

/** One error type with a code and a cause; the edges (CLI, HTTP, scheduler) report it once. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; data?: Record<string, unknown> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.data = options.data;
  }
}

/** A bad input field: "field: message", with the field named in the error's data. */
export function invalidField(field: string, message: string): AppError {
  return new AppError('invalid_input', `${field}: ${message}`, { data: { field } });
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
