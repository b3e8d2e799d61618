/**
 * `watchkeeper migrate-store`: a store moved into PostgreSQL with progress and a verified report
 * (table and --json), an older store migrated first, a changed target caught by the checksums,
 * and the clear errors for what cannot be copied.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { describe, expect, it } from 'vitest';

import { migrate, MIGRATIONS_DIR, openDatabase } from '../../src/db/index.js';
import { cliIn } from '../helpers/cli.js';
import { skipWithoutPostgres } from '../helpers/postgres.js';
import { copyFixtures } from '../helpers/store-copy.js';

skipWithoutPostgres();

const { cleanups, target, store } = copyFixtures();

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-migrate-store-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function cli(env: Record<string, string> = {}) {
  return cliIn(tempDir(), undefined, env).run;
}

async function exec(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('watchkeeper migrate-store', () => {
  it('copies a store with a line of progress per table and a verified table of results', async () => {
    const db = await target();
    const out = await cli()([
      'migrate-store',
      '--from',
      store(),
      '--to',
      db.url,
      '--instance',
      'cluster-a',
    ]);
    expect(out.stderr).toMatch(/^memories 3\/3 \(100%\)/m);
    expect(out.stderr).toMatch(/^events 3\/3 \(100%\)/m);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^table\s+rows\s+in target\s+kept\s+id offset\s+checksum$/m);
    expect(out.stdout).toMatch(/^memories\s+3\s+3\s+0\s+0\s+ok$/m);
    expect(out.stdout).toMatch(/^conversation_messages\s+2\s+2\s+0\s+0\s+ok$/m);
    expect(out.stdout).toMatch(
      new RegExp(
        `copied \\d+ rows into ${db.url.replace(/[.]/g, '\\.')} as instance cluster-a in .* verified\\n$`,
      ),
    );
    expect(out.stdout).not.toMatch(/DIFFERS/);
  });

  it('reports in JSON, takes the instance from WATCHKEEPER_INSTANCE and migrates an older store first', async () => {
    const db = await target();
    // A store of the version before instances existed.
    const older = tempDir();
    for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => f < '0017')) {
      copyFileSync(join(MIGRATIONS_DIR, f), join(older, f));
    }
    const path = join(tempDir(), 'old.db');
    const sqlite = openDatabase(path);
    migrate(sqlite, older);
    sqlite
      .prepare(
        `INSERT INTO memories (category, observation, confidence, base_confidence, created_at,
          updated_at, last_reinforced_at) VALUES ('timing', 'backups run at 03:00', 0.7, 0.7, 1, 1, 1)`,
      )
      .run();
    sqlite.close();

    const out = await cli({ WATCHKEEPER_INSTANCE: 'cluster-b' })([
      'migrate-store',
      '--from',
      path,
      '--to',
      db.url,
      '--json',
    ]);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(
      /migrated the store to this version first \(\d+ migration\(s\): 0017_fleet\.sql[,)]/,
    );
    const report = JSON.parse(out.stdout);
    expect(report).toMatchObject({
      from: path,
      to: db.url,
      instance: 'cluster-b',
      source_migrations_applied: expect.arrayContaining(['0017_fleet.sql']),
      resumed: false,
      already_copied: false,
      rows_copied: 1,
      verified: true,
    });
    expect(report.tables.find((t: { table: string }) => t.table === 'memories')).toEqual({
      table: 'memories',
      source_rows: 1,
      copied_rows: 1,
      kept_target_rows: 0,
      id_offset: 0,
      checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
      ok: true,
    });
  });

  it('fails with the tables at fault when the target no longer matches the store', async () => {
    const db = await target();
    const path = store();
    const run = cli();
    expect((await run(['migrate-store', '--from', path, '--to', db.url])).code).toBe(0);
    await exec(db.url, `UPDATE memories SET observation = 'changed' WHERE id = 1`);
    await exec(db.url, `DELETE FROM cooldown_blocks`);
    const out = await run(['migrate-store', '--from', path, '--to', db.url]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^memories\s+3\s+3\s+0\s+0\s+DIFFERS$/m);
    expect(out.stdout).toMatch(/nothing left to copy into .* as instance local .* NOT verified/);
    expect(out.stderr).toContain(
      'watchkeeper: verification failed: cooldown_blocks (1 rows in the store, 0 in the target); memories (3 rows in the store, 3 in the target, checksums differ)',
    );
  });

  it('says what is wrong with the store, the URL or the server', async () => {
    const run = cli();
    const dir = tempDir();
    const url = 'postgres://wk@127.0.0.1:5432/watchkeeper';

    let out = await run(['migrate-store', '--to', url]);
    expect([out.code, out.stderr]).toEqual([
      2,
      'watchkeeper: give the SQLite store to copy with --from FILE\n',
    ]);
    out = await run(['migrate-store', '--from', join(dir, 'x.db')]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--to postgres://');

    out = await run(['migrate-store', '--from', join(dir, 'missing.db'), '--to', url]);
    expect([out.code, out.stderr]).toEqual([
      2,
      `watchkeeper: --from ${join(dir, 'missing.db')}: no such file\n`,
    ]);

    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database at all, just some words that fill a page '.repeat(40));
    out = await run(['migrate-store', '--from', text, '--to', url]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--from .*notes\.txt is not a SQLite database/);

    const other = join(dir, 'other.db');
    const sqlite = openDatabase(other);
    sqlite.exec('CREATE TABLE t (x INTEGER)');
    sqlite.close();
    out = await run(['migrate-store', '--from', other, '--to', url]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/other\.db is a SQLite database but not a watchkeeper store/);

    const path = store();
    out = await run(['migrate-store', '--from', path, '--to', 'mysql://wk:hunter2@db/wk']);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'watchkeeper: --to must be a postgres:// URL such as postgres://wk@db.example.com/watchkeeper, got "mysql://wk:***@db/wk"\n',
    );

    // Nothing listens on port 1.
    out = await run([
      'migrate-store',
      '--from',
      path,
      '--to',
      'postgres://wk:hunter2@127.0.0.1:1/wk',
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /^watchkeeper: cannot reach PostgreSQL at postgres:\/\/wk:\*\*\*@127\.0\.0\.1:1\/wk: /,
    );
    expect(out.stderr).not.toContain('hunter2');

    out = await run(['migrate-store', '--from', path, '--to', url, '--instance', 'fleet']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--instance cannot be "fleet"/);
    mkdirSync(join(dir, 'folder.db'));
    out = await run(['migrate-store', '--from', join(dir, 'folder.db'), '--to', url]);
    expect(out.stderr).toMatch(/folder\.db: no such file/);
  });

  it('answers --help with its usage', async () => {
    const out = await cli()(['migrate-store', '--help']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^watchkeeper migrate-store --from FILE --to URL \[--instance NAME\] \[--json\]\n/,
    );
    expect(out.stdout).toContain('checksum');
  });
});
