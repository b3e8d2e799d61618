/**
 * What changed in the shared database, as this instance hears it: every table's statement-level
 * trigger sends `pg_notify('watchkeeper_changes', <table>)` (migrations/postgres), and one
 * listening connection per process counts them. The dashboard's refresh and live feeds compare
 * versions instead of polling tables, and the search caches catch up only after their table
 * changed. A lost connection counts as "everything changed" (the catch-up after it), and is
 * retried with a growing pause; while it is down, `reachable` is false.
 */
import type pg from 'pg';

export const CHANGES_CHANNEL = 'watchkeeper_changes';

export interface ChangeFeed {
  /** Changes whenever any table changed (or might have, after a lost connection). */
  version(): string;
  /** Changes whenever this table changed (or might have). */
  tableVersion(table: string): number;
  /** False while the listening connection is down. */
  reachable(): boolean;
  close(): Promise<void>;
}

export function startChangeFeed(url: string, applicationName: string): ChangeFeed {
  const counts = new Map<string, number>();
  let epoch = 0;
  let total = 0;
  let up = false;
  let closed = false;
  let client: pg.Client | null = null;
  let pause = 500;
  let timer: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const { default: pgModule } = await import('pg');
    const c = new pgModule.Client({
      connectionString: url,
      application_name: `${applicationName} (changes)`,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    client = c;
    c.on('notification', (n) => {
      const table = n.payload ?? '';
      counts.set(table, (counts.get(table) ?? 0) + 1);
      total++;
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGES_CHANNEL}`);
      // Listening never keeps a process alive on its own (a command ends when its work does).
      (
        c as unknown as { connection?: { stream?: { unref?(): void } } }
      ).connection?.stream?.unref?.();
      if (closed) return void c.end().catch(() => undefined);
      up = true;
      pause = 500;
      // Whatever happened while nobody listened: every cache catches up once.
      epoch++;
    } catch {
      lost(c);
    }
  };

  const lost = (c: pg.Client): void => {
    if (client !== c) return;
    client = null;
    up = false;
    epoch++;
    c.end().catch(() => undefined);
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, pause);
    timer.unref();
    pause = Math.min(pause * 2, 30_000);
  };

  void connect();
  return {
    version: () => `${epoch}.${total}`,
    tableVersion: (table) => epoch * 1e9 + (counts.get(table) ?? 0),
    reachable: () => up,
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      up = false;
      await c?.end().catch(() => undefined);
    },
  };
}
