import { afterEach, describe, expect, it } from 'vitest';

import { runnerHarness, type RunnerHarness } from '../helpers/runner.js';

let h: RunnerHarness;
afterEach(() => h?.close());

const chain = (prompt: string, startTier: 1 | 2 | 3 = 1) =>
  h.runChain({ trigger: 'manual', startTier, prompt, alert: null });
const warnings = () => h.stores.events.list({ source: 'system' }).map((e) => e.message);

describe('escalation chain (fixture CLI)', () => {
  it('runs the next tier as its own session linked to its parent, with the handoff', async () => {
    h = runnerHarness({ WATCHKEEPER_TIER2_PROMPT: 'ok-prompt-file-is-read' });
    // Tier 2 reads its prompt file: point it at a file whose content is the fixture's scenario.
    const { writeFileSync } = await import('node:fs');
    writeFileSync(h.config.runner.tiers[2].promptFile, 'ok');
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
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const argv = (
      JSON.parse(readFileSync(join(h.dataDir, 'fake-claude', `${second!.id}.json`), 'utf8')) as {
        argv: string[];
      }
    ).argv;
    const append = argv[argv.indexOf('--append-system-prompt') + 1]!;
    expect(append).toContain(`## Escalation handoff from tier 1 (session ${first!.id})`);
    expect(append).toContain('Reason: lag keeps growing');
    expect(append).toContain('- [warning] db: replication lag 40s');
    expect(argv[argv.indexOf('--model') + 1]).toBe('sonnet');
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
