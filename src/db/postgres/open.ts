/** Connects to the fleet's PostgreSQL database, failing at once with a clear error if it can't. */
import { AppError } from '../../errors.js';
import { PostgresDb, type PostgresOptions } from './database.js';
import { redactUrl } from './url.js';

export function openPostgres(url: string, opts: PostgresOptions = {}): PostgresDb {
  const db = new PostgresDb(url, opts);
  try {
    db.call({ op: 'query', text: 'SELECT 1', params: [], mode: 'plain' });
  } catch (cause) {
    db.close();
    if (cause instanceof AppError) throw cause;
    throw new AppError(
      'db_unavailable',
      `cannot use PostgreSQL at ${redactUrl(url)}: ${(cause as Error).message}`,
      { cause },
    );
  }
  return db;
}
