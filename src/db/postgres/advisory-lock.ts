/**
 * Work that instances starting at once must do one at a time: one READ COMMITTED transaction
 * holding a transaction-level advisory lock (each statement then sees what the instance before
 * it committed), rolled back when the work throws. The migrations and pgvector's setup use it.
 */
import type { PostgresDb } from './database.js';

export function underAdvisoryLock<T>(db: PostgresDb, key: number, work: () => T): T {
  db.call({ op: 'begin', isolation: 'READ COMMITTED' });
  try {
    db.call({
      op: 'query',
      text: 'SELECT pg_advisory_xact_lock($1)',
      params: [key],
      mode: 'plain',
    });
    const result = work();
    db.call({ op: 'commit' });
    return result;
  } catch (err) {
    try {
      db.call({ op: 'rollback' });
    } catch {
      // the connection is gone; the server rolls back on its own
    }
    throw err;
  }
}
