/**
 * A Claude Ops (Go sidecar) database, built the way the sidecar builds it: goose's version table
 * and the Up sections of its own migrations (test/fixtures/claudeops/migrations, quoted from
 * joestump/claude-ops at commit 0ee3ac9).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import Database from 'better-sqlite3';

const MIGRATIONS = fileURLToPath(new URL('../fixtures/claudeops/migrations/', import.meta.url));

/** The statements between `-- +goose Up` and `-- +goose Down`. */
function upSection(sql: string): string {
  const up = sql.indexOf('-- +goose Up');
  const down = sql.indexOf('-- +goose Down');
  return sql.slice(up, down === -1 ? undefined : down);
}

/**
 * Creates `path` at schema version `upTo` (7: Claude Ops HEAD). `createdAt` is goose's first
 * version row, which names the database (two databases built in one second stay apart).
 */
export function buildClaudeOpsDb(
  path: string,
  opts: { upTo?: number; createdAt?: string } = {},
): Database.Database {
  const db = new Database(path);
  // As the sqlite3 CLI of the event-emit.sh hook writes (better-sqlite3 enforces them by default):
  // that hook stored the CLI's session UUID in events.session_id.
  db.pragma('foreign_keys = OFF');
  // goose's own table for SQLite, with its version-0 row written when the table is created.
  db.exec(`CREATE TABLE goose_db_version (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    version_id INTEGER NOT NULL,
    is_applied INTEGER NOT NULL,
    tstamp TIMESTAMP DEFAULT (datetime('now')))`);
  db.prepare('INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (0, 1, ?)').run(
    opts.createdAt ?? '2026-02-20 10:00:00',
  );
  const files = readdirSync(MIGRATIONS).sort();
  for (const file of files) {
    const version = Number(file.slice(0, 5));
    if (version > (opts.upTo ?? 7)) break;
    db.exec(upSection(readFileSync(join(MIGRATIONS, file), 'utf8')));
    db.prepare('INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)').run(version);
  }
  return db;
}
