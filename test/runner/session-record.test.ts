/**
 * What each session got and did, recorded by the real runner with the fixture CLI: the exact
 * appended system prompt, token counts, the services checked, the chain's summary written in
 * the background, and a dry run that changes nothing at any tier.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createRuntime } from '../../src/cli/runtime.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { tokensOf } from '../../src/db/index.js';
import { silentLogger } from '../../src/log.js';
import { createChainRunner } from '../../src/runner/chain.js';
import { createChainSummarizer } from '../../src/runner/chain-summary.js';
import { decidePreToolUse } from '../../src/runner/pre-tool-use.js';
import { fakeClock } from '../helpers/clock.js';
import { controlledScript, OFF, simGateway, type SimGateway } from '../helpers/gateway.js';
import { runnerHarness, type RunnerHarness } from '../helpers/runner.js';

let h: RunnerHarness | undefined;
let g: SimGateway | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await g?.close();
  g = undefined;
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'watchkeeper-record-'));
  dirs.push(d);
  return d;
};
const recorded = (harness: RunnerHarness, sessionId: number) =>
  JSON.parse(readFileSync(join(harness.dataDir, 'fake-claude', `${sessionId}.json`), 'utf8')) as {
    argv: string[];
    files: Record<string, { content: string }>;
    env: Record<string, string>;
  };
const SID = '11111111-2222-4333-8444-555555555555';
/** A saved transcript the fixture CLI replays: assistant text, then the result line. */
function transcript(text: string, result: string, usage: Record<string, number>): string {
  const file = join(tmp(), 'transcript.ndjson');
  const lines = [
    { type: 'system', subtype: 'init', session_id: SID, model: 'fake-model', tools: [] },
    {
      type: 'assistant',
      message: {
        id: 'm1',
        role: 'assistant',
        model: 'fake-model',
        content: [{ type: 'text', text }],
      },
      parent_tool_use_id: null,
      session_id: SID,
    },
    {
      type: 'result',
      subtype: 'success',
      is_error: false,
      result,
      num_turns: 2,
      duration_ms: 5,
      total_cost_usd: 0.01,
      session_id: SID,
      usage,
    },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return `replay:${file}`;
}
/** Tier prompt files holding the fixture's scenario. */
function promptFiles(scenarios: Partial<Record<1 | 2 | 3, string>>): Record<string, string> {
  const dir = tmp();
  const env: Record<string, string> = {};
  for (const [tier, scenario] of Object.entries(scenarios)) {
    writeFileSync(join(dir, `tier${tier}.md`), scenario);
    env[`WATCHKEEPER_TIER${tier}_PROMPT`] = join(dir, `tier${tier}.md`);
  }
  return env;
}

describe('what a session got', () => {
  it('stores exactly the system prompt the CLI was handed', async () => {
    h = runnerHarness();
    h.stores.cooldowns.insert({
      service: 'nas',
      actionType: 'restart',
      success: true,
      source: 'agent',
      command: null,
      message: null,
      tier: 3,
      sessionId: null,
      createdAt: Date.now() - 60_000,
    });
    const out = await h.runSession({
      trigger: 'alert',
      tier: 1,
      prompt: 'ok',
      parentSessionId: null,
      handoff: null,
      alert: 'ALERT: nas 5xx above 5%',
    });
    const stored = h.stores.sessionRecords.systemPrompt(out.sessionId);
    expect(stored).toBe(recorded(h, out.sessionId).files['--append-system-prompt-file']!.content);
    expect(stored).toContain('## Cooldown state');
    expect(stored).toContain('ALERT: nas 5xx above 5%');
  });
});

describe('what a session did', () => {
  it('keeps the token counts and the services it checked, markers winning over the response', async () => {
    h = runnerHarness();
    const scenario = transcript(
      'Checked.\n[HEALTH:down:nas] no ping\n[HEALTH:ok:caddy]',
      'Healthy: pihole, nas. Degraded: jellyfin (2.9 s).',
      {
        input_tokens: 1200,
        output_tokens: 340,
        cache_read_input_tokens: 9000,
        cache_creation_input_tokens: 512,
      },
    );
    const out = await h.runSession({
      trigger: 'manual',
      tier: 1,
      prompt: scenario,
      parentSessionId: null,
      handoff: null,
      alert: null,
    });
    expect(tokensOf(h.stores.sessions.get(out.sessionId)!.usage)).toEqual({
      input: 1200,
      output: 340,
      cacheRead: 9000,
      cacheWrite: 512,
    });
    expect(
      h.stores.sessionRecords
        .checks(out.sessionId)
        .map((c) => [c.service, c.health, c.detail, c.source])
        .sort(),
    ).toEqual([
      ['caddy', 'healthy', null, 'marker'],
      ['jellyfin', 'degraded', '2.9 s', 'response'],
      ['nas', 'down', 'no ping', 'marker'],
      ['pihole', 'healthy', null, 'response'],
    ]);
    // A service only a health check named is on the Services list.
    expect((await h.knowledge.services.list()).map((s) => s.name)).toContain('pihole');
    expect(
      (await h.stores.sessionRecords.latestHealth()).find((c) => c.service === 'nas'),
    ).toMatchObject({
      health: 'down',
      sessionId: out.sessionId,
    });
  });
});

describe('chain summaries', () => {
  it('writes one summary of the whole chain through the gateway, without holding up the chain', async () => {
    h = runnerHarness(promptFiles({ 2: 'ok' }));
    const control = controlledScript();
    g = await simGateway(
      { stores: h.stores, clock: fakeClock(Date.now()) },
      { script: control.script },
    );
    const summarizer = createChainSummarizer({
      stores: h.stores,
      gateway: g.gateway,
      clock: systemClock,
      log: silentLogger,
    });
    const runChain = createChainRunner({
      runSession: h.runSession,
      stores: h.stores,
      config: h.config,
      clock: systemClock,
      log: silentLogger,
      summarizer,
    });
    control.hold('session-summary');
    const out = await runChain({
      trigger: 'manual',
      startTier: 1,
      prompt: 'escalate:2',
      alert: null,
    });
    const [root, child] = out.sessionIds as [number, number];
    // The chain is over while its summary is still being written (marked pending, awaited).
    await expect
      .poll(() => h!.stores.sessionRecords.summary(root))
      .toMatchObject({ status: 'pending', text: null });
    control.release('session-summary');
    await summarizer.idle();

    const summary = h.stores.sessionRecords.summary(root)!;
    expect(summary).toMatchObject({ status: 'done', source: 'model', error: null });
    expect(summary.text).toBe(
      'A manual run of 2 sessions went from tier 1 to tier 2 and ended completed. ' +
        'Tier 1: escalating. Tier 2: all good.',
    );
    expect(control.count('session-summary')).toBe(1);
    expect(h.stores.gatewayJobs.get(summary.jobId!)).toMatchObject({
      kind: 'session-summary',
      model: expect.stringContaining('sonnet'),
      ref: `session #${root} summary (2 sessions)`,
      outcome: 'ok',
    });
    expect(h.stores.sessionRecords.summary(child)!.status).toBeNull();
  });

  it('with no model, labels the final response’s first lines as the summary', async () => {
    h = runnerHarness();
    g = await simGateway({ stores: h.stores, clock: fakeClock(Date.now()) }, { config: OFF });
    const summarizer = createChainSummarizer({
      stores: h.stores,
      gateway: g.gateway,
      clock: systemClock,
      log: silentLogger,
    });
    const runChain = createChainRunner({
      runSession: h.runSession,
      stores: h.stores,
      config: h.config,
      clock: systemClock,
      log: silentLogger,
      summarizer,
    });
    const scenario = transcript(
      'x',
      'caddy answers in 40 ms.\n[EVENT:info:caddy] fine\njellyfin is slow.\n\nNothing changed.\nMore.',
      { input_tokens: 1, output_tokens: 1 },
    );
    const out = await runChain({ trigger: 'manual', startTier: 1, prompt: scenario, alert: null });
    await summarizer.idle();
    expect(h.stores.sessionRecords.summary(out.sessionIds[0]!)).toMatchObject({
      status: 'done',
      source: 'final_response',
      text: 'caddy answers in 40 ms.\njellyfin is slow.\nNothing changed.',
      error: 'no model is configured for the gateway (test)',
    });
  });
});

describe('dry run at every tier', () => {
  it('gives tier 3 the read-only tools and tells the guard', async () => {
    h = runnerHarness({ WATCHKEEPER_DRY_RUN: 'true' });
    const out = await h.runSession({
      trigger: 'api',
      tier: 3,
      prompt: 'ok',
      parentSessionId: null,
      handoff: null,
      alert: null,
    });
    const { argv, env } = recorded(h, out.sessionId);
    const allowed = argv[argv.indexOf('--allowedTools') + 1]!.split(',');
    const denied = argv[argv.indexOf('--disallowedTools') + 1]!.split(',');
    expect(allowed).not.toContain('Write');
    expect(allowed).not.toContain('Edit');
    expect(denied).toEqual(expect.arrayContaining(['Write', 'Edit', 'Bash(docker restart:*)']));
    expect(env.WATCHKEEPER_DRY_RUN).toBe('true');
  });

  it('hands the guard what the operator allows it to pass', async () => {
    h = runnerHarness({
      WATCHKEEPER_GUARD_ALLOW_INTERPRETERS: 'perl,awk',
      WATCHKEEPER_GUARD_ALLOW_ALIASES: 'true',
    });
    const out = await h.runSession({
      trigger: 'api',
      tier: 1,
      prompt: 'ok',
      parentSessionId: null,
      handoff: null,
      alert: null,
    });
    const { env } = recorded(h, out.sessionId);
    expect(loadConfig(env).guard).toEqual({ interpreters: ['perl', 'awk'], aliases: true });
  });

  it('refuses every restart and redeployment on a dry run, with no cooldown at all', async () => {
    h = runnerHarness();
    const ctx = {
      stores: h.stores,
      limits: h.config.cooldowns,
      clock: systemClock,
      sessionId: null,
      tier: 3,
    };
    const restart = {
      tool_name: 'Bash',
      tool_input: { command: 'ssh media docker restart jellyfin' },
    };
    expect((await decidePreToolUse(restart, ctx)).exitCode).toBe(0);
    const refused = await decidePreToolUse(restart, { ...ctx, dryRun: true });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('this is a dry run (WATCHKEEPER_DRY_RUN)');
    expect(refused.stderr).toContain('it could restart jellyfin');
    expect(await h.stores.cooldowns.blocksSince(0)).toMatchObject([
      { service: 'jellyfin', actionType: 'restart', command: 'ssh media docker restart jellyfin' },
    ]);
    expect(
      (
        await decidePreToolUse(
          { tool_name: 'Bash', tool_input: { command: 'df -h' } },
          { ...ctx, dryRun: true },
        )
      ).exitCode,
    ).toBe(0);
  });
});

describe('summaries a killed watchkeeper left pending', () => {
  it('are marked failed with the reason when the next serve or run starts', async () => {
    const dataDir = tmp();
    const config = loadConfig({
      WATCHKEEPER_DATA_DIR: dataDir,
      WATCHKEEPER_EMBEDDINGS: 'off',
      WATCHKEEPER_GATEWAY: 'off',
    });
    const first = createRuntime({ config, clock: systemClock, log: silentLogger, env: {} });
    const id = first.stores.sessions.start({ trigger: 'scheduled', tier: 1, startedAt: 1 });
    first.stores.sessions.finish(id, { status: 'completed', endedAt: 2 });
    await first.stores.sessionRecords.summaryPendingAwaited(id, 3);
    await first.close();

    const next = createRuntime({ config, clock: systemClock, log: silentLogger, env: {} });
    try {
      await next.recoverInterrupted();
      expect(next.stores.sessionRecords.summary(id)).toMatchObject({
        status: 'failed',
        text: null,
        error: 'watchkeeper stopped while the summary was being written',
      });
    } finally {
      await next.close();
    }
  });
});
