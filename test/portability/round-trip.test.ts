/**
 * `watchkeeper export` and `watchkeeper import` in-process, on real SQLite files through the
 * real migrator. Embeddings are off here (10,000 memories through the local model would take
 * minutes); dedup by meaning with the real model is covered in import-dedup.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type Category, CATEGORIES, DEFAULT_POLICY, nextDecayAt } from '../../src/memory/index.js';
import { cliIn } from '../helpers/cli.js';
import { type TestApp, testApp } from '../helpers/db.js';

const OFF = { WATCHKEEPER_EMBEDDINGS: 'off' };
const ON_POSTGRES = process.env.WATCHKEEPER_TEST_ENGINE === 'postgres';
/**
 * How many memories the big round trip carries: 10,000 on SQLite, the scale a user's export
 * reaches. On PostgreSQL, where this test is about the engine giving the same file back, 2,000:
 * still four export pages and four import batches, at a fifth of the statements (each one a
 * round trip to the server).
 */
const BIG = ON_POSTGRES ? 2_000 : 10_000;
/** The big store less the two memories `populated` deletes. */
const KEPT = BIG - 2;
const TIMEOUT_MS = ON_POSTGRES ? 600_000 : 120_000;
const SERVICES = ['jellyfin', 'postgresql', 'caddy', 'home-net', null] as const;

let apps: TestApp[] = [];
afterEach(() => {
  for (const a of apps) a.close();
  apps = [];
});

function app(): TestApp {
  const a = testApp();
  apps.push(a);
  return a;
}

/**
 * A store with `n` memories in every state an export must carry: reinforced, decayed,
 * superseded, archived, pinned, core, boosted, merged, in a conversation scope, with services
 * described; some deleted so that ids have gaps (an import into an empty store gives others).
 */
async function populated(n: number): Promise<TestApp> {
  const a = app();
  const { memories } = a.stores;
  const ids: number[] = [];
  a.stores.db.transaction(() => {
    for (let i = 0; i < n; i += 1) {
      const at = a.clock.now() + i * 1000;
      ids.push(
        memories.create({
          service: SERVICES[i % SERVICES.length]!,
          category: CATEGORIES[i % CATEGORIES.length] as Category,
          observation: `observation ${i}: the ${i % 7 === 0 ? 'backup' : 'service'} behaves in way ${i * 7919}`,
          confidence: 0.5 + (i % 5) * 0.1,
          sessionId: null,
          tier: i % 4,
          pinned: i % 97 === 0,
          at,
          nextDecayAt: nextDecayAt(at, at, DEFAULT_POLICY),
          importance: (['low', 'normal', 'high', 'core'] as const)[i % 4],
          source: (['marker', 'tool', 'operator', 'conversation', 'import'] as const)[i % 5],
          sourceRef: i % 3 === 0 ? `tool call toolu_${i}` : null,
          scope: i % 50 === 0 ? 'chat-home' : 'ops',
          evidence: i % 11 === 0 ? `seen in run ${i}` : null,
        }),
      );
    }
    const later = a.clock.now() + n * 1000 + 5000;
    memories.change(
      ids
        .filter((_, i) => i % 10 === 1)
        .map((id) => ({
          id,
          action: 'reinforced' as const,
          confidence: 0.9,
          active: true,
          resetBase: true,
          source: 'tool' as const,
          evidence: 'confirmed',
          importanceBoost: 0.1,
          at: later,
        })),
    );
    memories.change(
      ids
        .filter((_, i) => i % 10 === 2)
        .map((id) => ({
          id,
          action: 'decayed' as const,
          confidence: 0.4,
          active: true,
          at: later,
        })),
    );
    // Each of these is replaced by the memory after it.
    memories.change(
      ids
        .filter((_, i) => i % 10 === 3 && i + 1 < n)
        .map((id, k) => ({
          id,
          action: 'superseded' as const,
          confidence: 0.5,
          active: false,
          relatedMemoryId: ids[ids.indexOf(id) + 1]!,
          historyObservation: `said otherwise ${k}`,
          at: later + 1,
        })),
    );
    memories.change(
      ids
        .filter((_, i) => i % 10 === 5 && i % 4 !== 3)
        .map((id) => ({
          id,
          action: 'archived' as const,
          confidence: 0.6,
          active: false,
          archive: { reason: 'no longer true' },
          at: later + 2,
        })),
    );
  })();
  a.knowledge.services.describe('jellyfin', 'media server for the family films', 'operator');
  a.knowledge.services.describe('home-net', 'the house network, "wifi" and all', 'agent');
  a.clock.advance(n * 1000 + 10_000);
  await a.keeper.merge([ids[6]!, ids[16]!, ids[26]!], { text: 'merged wording' });
  await a.keeper.remove([ids[8]!, ids[18]!]);
  return a;
}

type Line = Record<string, unknown>;

/** Export lines with ids replaced by the order of their memory in the file. */
function normalised(text: string): Line[] {
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  const order = new Map<number, number>();
  lines.filter((l) => l.type === 'memory').forEach((l, i) => order.set(l.id as number, i + 1));
  const ref = (v: unknown) => (typeof v === 'number' ? `m${order.get(v) ?? `?${v}`}` : v);
  return lines.map((l) => {
    if (l.format !== undefined) return { ...l, exported_at: 'T' };
    if (l.type !== 'memory') return l;
    return {
      ...l,
      id: ref(l.id),
      superseded_by: ref(l.superseded_by),
      merged_into: ref(l.merged_into),
      inactive_reason:
        typeof l.inactive_reason === 'string'
          ? l.inactive_reason.replace(/#(\d+)/g, (_, id: string) => `#${ref(Number(id)) as string}`)
          : l.inactive_reason,
      history: (l.history as Line[]).map((h) => ({
        ...h,
        related_memory_id: ref(h.related_memory_id),
      })),
    };
  });
}

describe('export and import', { timeout: TIMEOUT_MS }, () => {
  it(`round-trips ${BIG.toLocaleString('en')} memories into an empty store exactly, apart from ids`, async () => {
    const source = await populated(BIG);
    const a = cliIn(source.dataDir, source.clock, OFF);
    const first = await a.run(['export', '--all']);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`exported ${KEPT}/${KEPT}`);
    const file = join(source.dataDir, 'memories.jsonl');
    writeFileSync(file, first.stdout);

    const target = app();
    const b = cliIn(target.dataDir, target.clock, OFF);
    const imported = await b.run(['import', file]);
    expect(imported.stderr).toContain(`imported ${KEPT}/${KEPT}`);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`Created ${KEPT}, reinforced 0, skipped 0, refused 0.`);
    // The gaps left by the deleted memories are gone: ids here differ from the source's.
    expect(target.stores.memories.get(KEPT)).not.toBeNull();
    expect(target.stores.memories.get(KEPT + 1)).toBeNull();

    const again = await b.run(['export', '--all']);
    expect(again.stderr.split('\n').filter((l) => !l.startsWith('exported '))).toEqual(['']);
    expect(again.code).toBe(0);
    const before = normalised(first.stdout);
    const after = normalised(again.stdout);
    expect(after.length).toBe(before.length);
    expect(after).toEqual(before);
    // Spot checks of what the comparison covers.
    const merged = before.find((l) => l.text === 'merged wording')!;
    expect((merged.history as Line[]).filter((h) => h.action === 'merged')).toHaveLength(2);
    expect(before.filter((l) => l.merged_into === merged.id)).toHaveLength(2);
    expect(before.filter((l) => l.type === 'service').map((l) => l.name)).toEqual(
      expect.arrayContaining(['jellyfin', 'home-net']),
    );

    // A second import of the same file changes nothing.
    const version = target.stores.db.prepare('SELECT COUNT(*) AS n FROM memory_history').get();
    const second = await b.run(['import', file]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`Created 0, reinforced 0, skipped ${KEPT}, refused 0.`);
    expect(target.stores.db.prepare('SELECT COUNT(*) AS n FROM memory_history').get()).toEqual(
      version,
    );
    expect(normalised((await b.run(['export', '--all'])).stdout)).toEqual(before);
  });

  it('exports active memories only without --all, and one service with --service', async () => {
    const source = await populated(100);
    const a = cliIn(source.dataDir, source.clock, OFF);
    const active = normalised((await a.run(['export'])).stdout);
    const memories = active.filter((l) => l.type === 'memory');
    expect(memories.length).toBe(await source.stores.memories.count({ status: 'active' }));
    expect(memories.every((m) => m.active === true)).toBe(true);
    const one = normalised((await a.run(['export', '--service', 'jellyfin'])).stdout);
    expect(one[0]).toMatchObject({ filter: { status: 'active', service: 'jellyfin' } });
    expect(one.filter((l) => l.type === 'memory').every((m) => m.service === 'jellyfin')).toBe(
      true,
    );
    expect(one.filter((l) => l.type === 'service').map((l) => l.name)).toEqual(['jellyfin']);
  });

  it('imports the good lines of a file with bad ones and names each bad line', async () => {
    const target = app();
    const good = (text: string) =>
      JSON.stringify({
        type: 'memory',
        text,
        service: 'jellyfin',
        category: 'timing',
        confidence: 0.7,
        created_at: '2026-01-01T00:00:00.000Z',
      });
    const file = join(target.dataDir, 'mixed.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ format: 'watchkeeper-memory/1', memories: 5 }),
        good('takes 60 s to start after a restart'),
        '{"type": "memory", "text": "cut short',
        good('transcoding needs the GPU').replace('"timing"', '"speed"'),
        good('x').replace('0.7', '7'),
        JSON.stringify({ type: 'cooldown', service: 'jellyfin' }),
        good('logs every request twice when debug is on'),
        '',
      ].join('\n'),
    );
    const b = cliIn(target.dataDir, target.clock, OFF);
    const dry = await b.run(['import', file, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(await target.stores.memories.count({ status: 'all' })).toBe(0);
    expect(dry.stdout).toContain(
      'line 2: would create memory "takes 60 s to start after a restart": new',
    );

    const run = await b.run(['import', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('line 3: refused line: not JSON');
    expect(run.stdout).toMatch(/line 4: refused memory: category: .*"timing"/);
    expect(run.stdout).toContain('line 5: refused memory: confidence:');
    expect(run.stdout).toContain('line 6: refused line: type: "cooldown" is neither');
    expect(run.stdout).toContain('Created 2, reinforced 0, skipped 0, refused 4.');
    expect(
      target.stores.memories
        .list({ status: 'all' })
        .map((m) => m.observation)
        .sort(),
    ).toEqual(['logs every request twice when debug is on', 'takes 60 s to start after a restart']);
  });

  it('refuses a file that is not an export, changing nothing', async () => {
    const target = app();
    const file = join(target.dataDir, 'memory.jsonl');
    writeFileSync(
      file,
      '{"type":"entity","name":"jellyfin","entityType":"service","observations":[]}\n',
    );
    const run = await cliIn(target.dataDir, target.clock, OFF).run(['import', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('line 1: not a watchkeeper memory export');
    expect(await target.stores.memories.count({ status: 'all' })).toBe(0);
  });

  it('reinforces an existing memory that says the same, and only once for the same file', async () => {
    const target = app();
    const existing = await target.keeper.add({
      service: 'jellyfin',
      category: 'timing',
      observation: 'jellyfin takes 60 s to start after a restart',
    });
    const file = join(target.dataDir, 'one.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ format: 'watchkeeper-memory/1', memories: 1 })}\n${JSON.stringify({
        type: 'memory',
        text: 'Jellyfin takes 60 s to start after restart',
        service: 'jellyfin',
        category: 'behavior',
        confidence: 0.6,
        created_at: '2025-06-01T10:00:00.000Z',
      })}\n`,
    );
    const b = cliIn(target.dataDir, target.clock, OFF);
    const run = await b.run(['import', file]);
    expect(run.stdout).toContain(
      `reinforced memory "Jellyfin takes 60 s to start after restart": says what memory #${existing.memory.id} says (lexical`,
    );
    expect(await target.stores.memories.count({ status: 'all' })).toBe(1);
    const after = target.stores.memories.get(existing.memory.id)!;
    expect(after.confidence).toBeCloseTo(existing.memory.confidence + 0.1);
    const again = await b.run(['import', file]);
    expect(again.stdout).toContain('skipped memory');
    expect(again.stdout).toContain('imported before');
    expect(target.stores.memories.get(existing.memory.id)!.confidence).toBe(after.confidence);
    expect(readFileSync(file, 'utf8')).toContain('watchkeeper-memory/1');
  });
});
