/**
 * The Go sidecar's per-session summary becomes the imported session's summary, labelled as
 * Claude Ops', on the session page and the sessions list; a second import changes nothing, and a
 * database imported before the summary was carried over gets it from the next migration.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { importedDecayState } from '../../src/cli/commands/import-claudeops.js';
import { migrate, MIGRATIONS_DIR, readMigrations } from '../../src/db/migrate.js';
import { readClaudeOpsDatabase } from '../../src/db/index.js';
import { buildClaudeOpsDb } from '../helpers/claudeops-db.js';
import { TOKEN, type WebHarness, webHarness } from '../helpers/web.js';

const NOW = Date.UTC(2026, 5, 10);
const SUMMARY_1 = 'Checked 12 services; jellyfin was slow, escalated to tier 2.';
const SUMMARY_2 = 'Restarted jellyfin; it answered in 58 seconds.';

let h: WebHarness;
let goPath: string;

beforeEach(() => {
  h = webHarness();
  h.clock.set(NOW);
  goPath = join(h.dataDir, 'claudeops.db');
  const go = buildClaudeOpsDb(goPath);
  const session = go.prepare(`INSERT INTO sessions (id, tier, model, prompt_file, status,
    started_at, ended_at, exit_code, trigger, parent_session_id, summary)
    VALUES (?, ?, 'haiku', '/app/prompts/p.md', ?, ?, ?, 0, 'scheduled', ?, ?)`);
  session.run(1, 1, 'escalated', '2026-06-01T10:00:00Z', '2026-06-01T10:02:30Z', null, SUMMARY_1);
  session.run(2, 2, 'completed', '2026-06-01 10:02:31', '2026-06-01 10:05:00', 1, SUMMARY_2);
  session.run(3, 1, 'completed', '2026-06-02T10:00:00Z', '2026-06-02T10:01:00Z', null, '  ');
  go.close();
});
afterEach(() => h.close());

function runImport(): void {
  const source = readClaudeOpsDatabase(goPath);
  try {
    h.stores.claudeOpsImport.importDatabase(source, {
      now: h.clock.now(),
      dryRun: false,
      decayState: importedDecayState,
    });
  } finally {
    source.close();
  }
}

function target(sourceId: number): number {
  return (
    h.stores.db
      .prepare(
        "SELECT target_id AS id FROM claudeops_imports WHERE kind = 'session' AND source_id = ?",
      )
      .get(sourceId) as { id: number }
  ).id;
}

const page = async (path: string) =>
  (await h.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();

describe('imported Claude Ops summaries', () => {
  it('are each session’s summary, labelled as from Claude Ops, and stay as they are on a second import', async () => {
    runImport();
    const one = target(1);
    const two = target(2);
    expect(h.stores.sessionRecords.summary(one)).toMatchObject({
      text: SUMMARY_1,
      source: 'model',
      status: 'done',
      origin: 'claudeops',
      at: Date.parse('2026-06-01T10:02:30Z'),
    });
    // A blank summary is no summary.
    expect(h.stores.sessionRecords.summary(target(3))).toMatchObject({ text: null, status: null });

    // The tier-2 session shows the summary Claude Ops wrote for it, not its chain's first.
    const child = await page(`/sessions/${two}`);
    expect(child).toContain(SUMMARY_2);
    expect(child).toContain('summary from Claude Ops');
    expect(child).not.toContain(SUMMARY_1);
    expect(await page(`/sessions/${one}`)).toContain(SUMMARY_1);
    expect(await page('/sessions')).toContain(SUMMARY_1);

    const before = h.stores.db.prepare('SELECT * FROM sessions ORDER BY id').all();
    runImport();
    expect(h.stores.db.prepare('SELECT * FROM sessions ORDER BY id').all()).toEqual(before);
  });

  it('reach sessions imported before summaries were carried over, through the migration', () => {
    // A database at the schema before 0016, with a session imported the old way: its summary
    // only in the import record.
    const older = join(h.dataDir, 'migrations-0015');
    mkdirSync(older);
    for (const m of readMigrations().filter((x) => x.version <= 15)) {
      copyFileSync(join(MIGRATIONS_DIR, m.name), join(older, m.name));
    }
    const db = new Database(join(h.dataDir, 'older.db'));
    try {
      migrate(db, older);
      const id = Number(
        db
          .prepare(
            `INSERT INTO sessions (status, trigger, tier, started_at, ended_at, simulated)
            VALUES ('completed', 'scheduled', 1, 1000, 2000, 0)`,
          )
          .run().lastInsertRowid,
      );
      const other = Number(
        db
          .prepare(
            `INSERT INTO sessions (status, trigger, tier, started_at, simulated)
            VALUES ('completed', 'scheduled', 1, 3000, 0)`,
          )
          .run().lastInsertRowid,
      );
      const record = db.prepare(`INSERT INTO claudeops_imports
        (source, kind, source_id, target_id, detail_json, imported_at) VALUES ('go', 'session', ?, ?, ?, 0)`);
      record.run(1, id, JSON.stringify({ summary: SUMMARY_1, log_file: '/results/x.log' }));
      record.run(2, other, JSON.stringify({ log_file: '/results/y.log' }));

      migrate(db);
      const row = (sessionId: number) =>
        db
          .prepare(
            `SELECT summary, summary_source AS source, summary_status AS status,
            summary_origin AS origin, summary_at AS at FROM sessions WHERE id = ?`,
          )
          .get(sessionId);
      expect(row(id)).toEqual({
        summary: SUMMARY_1,
        source: 'model',
        status: 'done',
        origin: 'claudeops',
        at: 2000,
      });
      expect(row(other)).toEqual({
        summary: null,
        source: null,
        status: null,
        origin: null,
        at: null,
      });
    } finally {
      db.close();
    }
  });
});
