import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import type { EventRow } from '../../src/db/index.js';
import {
  formatHandoff,
  MAX_HANDOFF_EVENT_CHARS,
  MAX_HANDOFF_EVENTS_CHARS,
} from '../../src/runner/session-context.js';
import { runnerHarness, type RunnerHarness } from '../helpers/runner.js';

let h: RunnerHarness;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const chain = (prompt: string, startTier: 1 | 2 | 3 = 1) =>
  h.runChain({ trigger: 'manual', startTier, prompt, alert: null });
const warnings = () => h.stores.events.list({ source: 'system' }).map((e) => e.message);
/** Tier prompt files in a folder of their own, each holding the fixture's scenario. */
function promptFiles(scenarios: Partial<Record<1 | 2 | 3, string>>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-prompts-'));
  dirs.push(dir);
  const env: Record<string, string> = {};
  for (const [tier, scenario] of Object.entries(scenarios)) {
    const file = join(dir, `tier${tier}.md`);
    writeFileSync(file, scenario);
    env[`WATCHKEEPER_TIER${tier}_PROMPT`] = file;
  }
  return env;
}
/** The appended system prompt the fixture CLI read for a session. */
const appended = (sessionId: number) =>
  (
    JSON.parse(readFileSync(join(h.dataDir, 'fake-claude', `${sessionId}.json`), 'utf8')) as {
      files: Record<string, { content: string }>;
    }
  ).files['--append-system-prompt-file']!.content;

const event = (id: number, level: EventRow['level'], message: string): EventRow => ({
  id,
  sessionId: 1,
  source: 'agent',
  level,
  service: `svc${id}`,
  message,
  createdAt: 0,
  instance: 'local',
});

describe('escalation chain (fixture CLI)', () => {
  it('runs the next tier as its own session linked to its parent, with the handoff', async () => {
    // Tier 2 reads its prompt file: the file holds the fixture's scenario.
    h = runnerHarness(promptFiles({ 2: 'ok' }));
    const out = await chain('escalate:2');
    expect(out.sessionIds).toHaveLength(2);
    const [first, second] = out.sessionIds.map((id) => h.stores.sessions.get(id)!);
    expect(first).toMatchObject({ status: 'escalated', tier: 1, trigger: 'manual' });
    expect(second).toMatchObject({
      status: 'completed',
      tier: 2,
      trigger: 'escalation',
      parentSessionId: first!.id,
      model: 'fake-model',
    });
    const append = appended(second!.id);
    expect(append).toContain(`## Escalation handoff from tier 1 (session ${first!.id})`);
    expect(append).toContain('Reason: lag keeps growing');
    expect(append).toContain('- [warning] db: replication lag 40s');
  });

  it('hands a busy chain to the next tier within the event budget, the critical event kept', async () => {
    h = runnerHarness(promptFiles({ 2: 'ok' }));
    const out = await chain('noisy-escalate');
    expect(out.sessionIds).toHaveLength(2);
    const append = appended(out.sessionIds[1]!);
    const lines = append.split('\n').filter((l) => /^- \[(info|warning|critical)\]/.test(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(50);
    expect(lines.join('\n').length).toBeLessThanOrEqual(MAX_HANDOFF_EVENTS_CHARS);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(MAX_HANDOFF_EVENT_CHARS + 40);
    expect(lines.some((l) => l.startsWith('- [critical] svc42: '))).toBe(true);
    expect(append).toContain(`- ... ${50 - lines.length} more event(s) not shown`);
  });

  it('ends the chain normally when a tier cannot be spawned', async () => {
    h = runnerHarness({ WATCHKEEPER_TIER2_MODEL: 'sonnet\u0000', ...promptFiles({ 2: 'ok' }) });
    const out = await chain('escalate:2');
    expect(out).toMatchObject({ status: 'failed' });
    expect(out.sessionIds).toHaveLength(2);
    expect(h.stores.sessions.get(out.sessionIds[1]!)!.error).toMatch(/cannot start the Claude CLI/);
    expect((await chain('ok')).status).toBe('completed');
  });

  it('refuses an escalation that is not above the current tier (no loops)', async () => {
    h = runnerHarness();
    const out = await chain('escalate:2', 2);
    expect(out.sessionIds).toHaveLength(1);
    expect(warnings()).toContain(
      'Escalation to tier 2 ignored: it must be above the current tier 2',
    );
  });

  it('refuses an escalation above the max tier', async () => {
    h = runnerHarness({ WATCHKEEPER_MAX_TIER: '2' });
    await chain('escalate:3');
    expect(warnings()).toContain('Escalation to tier 3 ignored: the highest tier allowed is 2');
  });

  it('suppresses escalation in dry run, with an info event', async () => {
    h = runnerHarness({ WATCHKEEPER_DRY_RUN: 'true' });
    const out = await chain('escalate:2');
    expect(out.sessionIds).toHaveLength(1);
    expect(
      h.stores.events.list({ source: 'system', level: 'info' }).map((e) => e.message),
    ).toContain('Escalation to tier 2 suppressed (dry run): lag keeps growing');
    expect(h.stores.sessions.get(out.sessionIds[0]!)!.status).toBe('completed');
  });

  it('ends the chain when a tier fails', async () => {
    h = runnerHarness();
    const out = await chain('crash');
    expect(out).toMatchObject({ status: 'failed' });
    expect(out.sessionIds).toHaveLength(1);
  });
});

describe('escalation handoff', () => {
  it('clips each event and the whole list, keeping the most severe, in the order they came', () => {
    const events = [
      ...Array.from({ length: 100 }, (_, i) => event(i + 1, 'info', `${'i'.repeat(1990)}${i}`)),
      event(101, 'critical', 'disk full\u0000 on nas'),
      event(102, 'warning', 'slow'),
    ];
    const text = formatHandoff({
      fromTier: 2,
      fromSessionId: 7,
      reason: 'r'.repeat(5000),
      chainEvents: events,
      previousFinalText: 'done',
    });
    const lines = text.split('\n').filter((l) => l.startsWith('- ['));
    expect(lines.join('\n').length).toBeLessThanOrEqual(MAX_HANDOFF_EVENTS_CHARS);
    expect(lines.every((l) => l.length <= MAX_HANDOFF_EVENT_CHARS + 20)).toBe(true);
    // The critical and warning events survive the cut, after the info events that came first.
    expect(lines.slice(-2)).toEqual([
      '- [critical] svc101: disk full on nas',
      '- [warning] svc102: slow',
    ]);
    expect(text).toContain(`- ... ${102 - lines.length} more event(s) not shown`);
    expect(text.split('\n')[1]!.length).toBeLessThan(600);
  });

  it('lists a short chain whole', () => {
    const text = formatHandoff({
      fromTier: 1,
      fromSessionId: 3,
      reason: 'lag',
      chainEvents: [event(1, 'warning', 'replication lag 40s'), event(2, 'info', 'ok')],
      previousFinalText: null,
    });
    expect(text).toContain('- [warning] svc1: replication lag 40s\n- [info] svc2: ok\n');
    expect(text).not.toContain('more event(s)');
  });
});
