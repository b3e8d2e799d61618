/**
 * The outbox of a session's store writes, against a pretend database that can be switched off:
 * writes are held in order while it is off, tried again on the next write and on the timer,
 * bounded, and warned about once per outage.
 */
import { describe, expect, it } from 'vitest';

import { AppError } from '../../src/errors.js';
import type { Logger } from '../../src/log.js';
import { createMarkerOutbox, outageError } from '../../src/runner/marker-outbox.js';

function pretendDatabase() {
  const db = { up: true, rows: [] as string[] };
  const write = (row: string) => ({
    what: row,
    run: () => {
      if (!db.up) throw new AppError('db_unavailable', 'PostgreSQL at x is unreachable');
      db.rows.push(row);
    },
  });
  return { db, write };
}

function recorder() {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (msg: string) => void lines.push({ level, msg });
  const log: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
  return { lines, log };
}

describe('the marker outbox', () => {
  it('holds writes in order while the database is off and writes them when it is back', async () => {
    const { db, write } = pretendDatabase();
    const { lines, log } = recorder();
    const failures: unknown[] = [];
    const outbox = createMarkerOutbox({
      sessionId: 1,
      log,
      probe: async () => db.up,
      onFailure: (e) => failures.push(e),
      retryMs: 60_000,
    });
    outbox.submit(write('a'));
    db.up = false;
    outbox.submit(write('b'));
    outbox.submit(write('c'));
    expect(outbox.state()).toMatchObject({ held: 2, outage: true });
    await outbox.flush(); // still off: nothing happens
    db.up = true;
    outbox.submit(write('d')); // behind the held ones, never before them
    await outbox.flush();
    expect(db.rows).toEqual(['a', 'b', 'c', 'd']);
    expect(outbox.state()).toMatchObject({ held: 0, stored: 3, dropped: 0 });
    // A second outage warns again; each warns once however many writes it holds.
    db.up = false;
    for (const row of ['e', 'f', 'g']) outbox.submit(write(row));
    db.up = true;
    await outbox.flush();
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(2);
    expect(failures).toEqual([]);
    outbox.stop();
  });

  it('drops writes past its bound and says so, once', async () => {
    const { db, write } = pretendDatabase();
    const { lines, log } = recorder();
    const outbox = createMarkerOutbox({
      sessionId: 1,
      log,
      probe: async () => db.up,
      onFailure: () => undefined,
      max: 3,
    });
    db.up = false;
    for (const row of ['a', 'b', 'c', 'd', 'e']) outbox.submit(write(row));
    outbox.stop();
    expect(outbox.state()).toMatchObject({ held: 3, dropped: 2 });
    expect(outbox.heldWrites()).toEqual(['a', 'b', 'c']);
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(outageError(outbox.state(), 3)).toBe(
      'the database was unreachable when the session ended: its 3 held markers were stored ' +
        'only when it returned; 2 markers after the first 3 held were not stored (they are in ' +
        'the session log)',
    );
    db.up = true;
    await outbox.flush();
    expect(db.rows).toEqual(['a', 'b', 'c']);
    expect(outageError(outbox.state(), 3)).toBe(
      'the database was unreachable during the session: 2 markers after the first 3 held were ' +
        'not stored (they are in the session log)',
    );
  });

  it('passes on errors that are not about reaching the database', () => {
    const { log } = recorder();
    const outbox = createMarkerOutbox({
      sessionId: 1,
      log,
      probe: async () => true,
      onFailure: () => undefined,
    });
    expect(() =>
      outbox.submit({
        what: 'bad',
        run: () => {
          throw new Error('syntax error');
        },
      }),
    ).toThrow('syntax error');
    expect(outbox.state()).toMatchObject({ held: 0, outage: false });
    expect(outageError(outbox.state())).toBeNull();
  });
});
