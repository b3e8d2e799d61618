/**
 * Every field of an imported record meets the rules the API and the memory service apply, and a
 * file's ids and links make sense: a bad line is refused with its number and the field named,
 * and nothing of it is written; the good lines come in. On real stores (SQLite and PostgreSQL).
 */
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createPortability, fileLines, textLines } from '../../src/portability/index.js';
import { type TestApp, testApp } from '../helpers/db.js';

let a: TestApp | null = null;
afterEach(() => {
  a?.close();
  a = null;
});

const HEADER = JSON.stringify({ format: 'watchkeeper-memory/1', memories: 1 });

function memory(over: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'memory',
    text: 'jellyfin takes 60 seconds to start after a restart',
    service: 'jellyfin',
    category: 'timing',
    confidence: 0.7,
    created_at: '2025-12-01T08:00:00.000Z',
    ...over,
  });
}

async function imported(lines: string[], dryRun = false) {
  a = testApp();
  const portability = createPortability({ ...a, clock: a.clock });
  return portability.importMemories(textLines([HEADER, ...lines].join('\n')), { dryRun });
}

const refusals = (r: Awaited<ReturnType<typeof imported>>) =>
  r.items.filter((i) => i.action === 'refused').map((i) => `line ${i.line}: ${i.why}`);

describe('import validation', () => {
  it('refuses a field the API or the memory service would refuse, naming line and field', async () => {
    const report = await imported([
      memory({ text: 'archived one', archive_reason: 'stale\u0000 value', active: false }),
      memory({
        text: 'with a long history',
        history: [
          {
            action: 'reinforced',
            created_at: '2025-12-02T08:00:00.000Z',
            evidence: 'x'.repeat(5_000_000),
          },
        ],
      }),
      memory({ text: 'in an odd scope', scope: '../../x' }),
      memory({ text: 'from the far future', created_at: '9999-01-01T00:00:00.000Z' }),
      memory({ text: 'with a bad source', provenance: { source_ref: 'a\u001bb' } }),
      JSON.stringify({ type: 'service', name: 'jellyfin', description: 'd'.repeat(10_000) }),
      JSON.stringify({ type: 'service', name: '../etc', description: 'a media server' }),
      memory({ text: 'this one is fine' }),
    ]);
    expect(refusals(report)).toEqual([
      'line 2: archive_reason: contains the control character U+0000 at position 5',
      'line 3: history.0.evidence: is 5000000 characters, over the limit of 2000',
      'line 4: scope: "../../x" is not a scope name: use 1 to 100 letters, digits, ".", "_", ":" and "-"',
      'line 5: created_at: 9999-01-01T00:00:00.000Z is not a time a memory can have (from 2000-01-01 to now, 2026-01-01T00:00:00.000Z)',
      'line 6: provenance.source_ref: contains the control character U+001B at position 1',
      'line 7: description: is 10000 characters, over the limit of 500',
      'line 8: name: "../etc" may hold only letters, digits, ".", "_" and "-"',
    ]);
    expect(report.counts).toEqual({ created: 1, reinforced: 0, skipped: 0, refused: 5 });
    expect(a!.stores.memories.list({ status: 'all' }).map((m) => m.observation)).toEqual([
      'this one is fine',
    ]);
    expect(a!.stores.services.get('jellyfin')?.description ?? '').not.toContain('ddd');
  });

  it('refuses a second line with an id already used, and every line on a cycle of links', async () => {
    const report = await imported([
      memory({ id: 1, text: 'the first with id 1', superseded_by: 2, active: false }),
      memory({ id: 2, text: 'the one that replaced it' }),
      memory({ id: 1, text: 'a second with id 1', superseded_by: null, merged_into: 2 }),
      memory({ id: 5, text: 'replaced by six', superseded_by: 6, active: false }),
      memory({ id: 6, text: 'replaced by five', superseded_by: 5, active: false }),
      memory({ id: 7, text: 'merged into itself', merged_into: 7, active: false }),
    ]);
    expect(refusals(report)).toEqual([
      'line 4: id: 1 is the id of line 2 too; each memory of a file has an id of its own',
      'line 5: superseded_by/merged_into: a cycle of links through lines 5, 6 (a memory cannot be replaced by itself)',
      'line 6: superseded_by/merged_into: a cycle of links through lines 5, 6 (a memory cannot be replaced by itself)',
      'line 7: superseded_by/merged_into: a cycle of links through line 7 (a memory cannot be replaced by itself)',
    ]);
    const rows = a!.stores.memories.list({ status: 'all' });
    expect(rows.map((m) => m.observation).sort()).toEqual([
      'the first with id 1',
      'the one that replaced it',
    ]);
    const first = rows.find((m) => m.observation === 'the first with id 1')!;
    const second = rows.find((m) => m.observation === 'the one that replaced it')!;
    // The first line's links hold, not the refused duplicate's.
    expect(first.supersededBy).toBe(second.id);
    expect(a!.stores.portability.mergedInto(first.id)).toBeNull();
  });

  it('refuses a line too long to read with its number, and reads the rest', async () => {
    a = testApp();
    const portability = createPortability({ ...a, clock: a.clock });
    const text = [HEADER, memory({ text: 'x'.repeat(3000) }), memory()].join('\n');
    const report = await portability.importMemories(textLines(text, 1000));
    expect(refusals(report)).toEqual([
      'line 2: the line is 3.1 KiB, over the limit of 1000 bytes for one line (not read)',
    ]);
    expect(report.counts.created).toBe(1);
  });

  it('opens a file only to read it: one gone meanwhile is the import’s error, nothing else’s', async () => {
    a = testApp();
    const portability = createPortability({ ...a, clock: a.clock });
    // Looking at the source opened a stream of its own, never read: its error came later,
    // uncaught, from wherever the process was by then.
    const gone = join(a.dataDir, 'gone.jsonl');
    await expect(portability.importMemories(fileLines(gone))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(await a.stores.memories.count({ status: 'all' })).toBe(0);
  });
});
