/** `watchkeeper import-claudeops DB [--dry-run] [--json]` from the command line. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { buildClaudeOpsDb } from '../helpers/claudeops-db.js';
import { cliIn } from '../helpers/cli.js';
import { fakeClock } from '../helpers/clock.js';

let dir: string;
let goPath: string;
let cli: ReturnType<typeof cliIn>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watchkeeper-import-'));
  goPath = join(dir, 'claudeops.db');
  const go = buildClaudeOpsDb(goPath);
  go.exec(`
    INSERT INTO sessions (id, tier, model, prompt_file, status, started_at, ended_at, trigger)
      VALUES (1, 1, 'haiku', '/app/prompts/tier1-observe.md', 'completed', '2026-06-01T10:00:00Z',
        '2026-06-01 10:01:00', 'scheduled');
    INSERT INTO events (session_id, level, service, message, created_at)
      VALUES (1, 'critical', 'plex', 'plex is down', '2026-06-01 10:00:30'),
             (1, 'fatal', 'plex', 'still down', '2026-06-01T10:00:40Z');
    INSERT INTO memories (service, category, observation, confidence, active, created_at, updated_at)
      VALUES ('plex', 'behavior', 'Plex needs the NAS mounted first', 0.8, 1, '2026-05-01T00:00:00Z',
        '2026-05-20 00:00:00');
    INSERT INTO cooldown_actions (service, action_type, timestamp, success, tier)
      VALUES ('plex', 'restart', 'bad time', 1, 3);
  `);
  go.close();
  cli = cliIn(join(dir, 'data'), fakeClock(Date.UTC(2026, 5, 10)), {
    WATCHKEEPER_EMBEDDINGS: 'off',
  });
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('watchkeeper import-claudeops', () => {
  it('reports on a dry run and writes nothing, then imports, then adds nothing', async () => {
    const dry = await cli.run(['import-claudeops', goPath, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Dry run: nothing was written. An import would do this:');
    expect(dry.stdout).toMatch(/found\s+to import\s+imported before\s+skipped/);
    expect(dry.stdout).toMatch(/events\s+2\s+2\s+0\s+0/);
    expect(dry.stdout).toContain(
      '1 cooldown action (Claude Ops id 1): timestamp "bad time" is not a time',
    );
    expect(dry.stdout).toContain('1 event (Claude Ops id 2): level "fatal" stored as critical');
    expect(JSON.parse((await cli.run(['sessions', 'list', '--json'])).stdout)).toEqual([]);

    const real = await cli.run(['import-claudeops', goPath]);
    expect(real.code).toBe(0);
    expect(real.stdout).not.toContain('Dry run');
    expect(real.stdout).toMatch(/sessions\s+1\s+1\s+0\s+0/);
    expect(real.stdout).toMatch(/memories\s+1\s+1\s+0\s+0/);
    expect(real.stdout).toMatch(/cooldown actions\s+1\s+0\s+0\s+1/);
    const sessions = JSON.parse((await cli.run(['sessions', 'list', '--json'])).stdout);
    expect(sessions).toMatchObject([
      {
        status: 'completed',
        started_at: '2026-06-01T10:00:00.000Z',
        ended_at: '2026-06-01T10:01:00.000Z',
      },
    ]);
    const memories = JSON.parse((await cli.run(['memories', 'list', '--json'])).stdout);
    expect(memories).toMatchObject([
      {
        service: 'plex',
        observation: 'Plex needs the NAS mounted first',
        confidence: 0.8,
        source: 'import',
        last_reinforced_at: '2026-05-20T00:00:00.000Z',
      },
    ]);

    const again = await cli.run(['import-claudeops', goPath, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).counts).toEqual({
      session: { found: 1, imported: 0, imported_before: 1, skipped: 0 },
      event: { found: 2, imported: 0, imported_before: 2, skipped: 0 },
      memory: { found: 1, imported: 0, imported_before: 1, skipped: 0 },
      cooldown: { found: 1, imported: 0, imported_before: 0, skipped: 1 },
    });
    expect(JSON.parse((await cli.run(['events', 'list', '--json'])).stdout)).toHaveLength(2);
  });

  it('refuses bad arguments and files that are not a Claude Ops database', async () => {
    const none = await cli.run(['import-claudeops']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the Claude Ops database');
    const missing = await cli.run(['import-claudeops', join(dir, 'nope.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.db: no such file');
    await cli.run(['migrate']);
    const own = await cli.run(['import-claudeops', join(dir, 'data', 'watchkeeper.db')]);
    expect(own.code).toBe(2);
    expect(own.stderr).toContain("is watchkeeper's own database");
  });
});
