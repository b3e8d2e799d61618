/**
 * The model gateway with its Anthropic backend against the simulated Messages API on loopback:
 * text and validated JSON, the job records, schema failures, retries, timeouts, concurrency, the
 * daily budget, and no model configured.
 */
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { openStores, type Stores } from '../../src/db/index.js';

import { gatewayScript } from '../../src/sim/gateway-jobs.js';
import type { SimScript } from '../../src/sim/messages-api.js';
import { testApp, type TestApp, testDatabaseUrl } from '../helpers/db.js';
import {
  controlledScript,
  OFF,
  recordJobCost,
  type SimGateway,
  simGateway,
} from '../helpers/gateway.js';

let app: TestApp;
let gw: SimGateway;

afterEach(async () => {
  await gw?.close();
  app?.close();
});

async function setUp(o: Parameters<typeof simGateway>[1] = {}) {
  app = testApp();
  gw = await simGateway(app, o);
  return gw.gateway;
}

const GATE = {
  kind: 'gate',
  system: '[watchkeeper:gate] Decide.',
  prompt:
    'Conversation window (messages 0-1):\n[#0 user] I prefer dark mode.\n[#1 assistant] Noted.',
  schema: z.strictObject({ worth_remembering: z.boolean(), reason: z.string() }),
} as const;

describe('model gateway (anthropic backend, simulated Messages API)', () => {
  it('returns validated JSON for a schema and records the job with model, tokens, cost and duration', async () => {
    const gateway = await setUp();
    const r = await gateway.run({ ...GATE, ref: 'test gate' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.json).toEqual({ worth_remembering: true, reason: 'message #0 says "prefer"' });
    // The request asked for JSON the way the API takes it, with the kind's model.
    const request = gw.sim!.requests[0]!;
    expect(request.model).toBe('claude-haiku-4-5');
    expect(
      (request.body.output_config as { format: { type: string; schema: unknown } }).format,
    ).toEqual({
      type: 'json_schema',
      schema: {
        type: 'object',
        properties: { worth_remembering: { type: 'boolean' }, reason: { type: 'string' } },
        required: ['worth_remembering', 'reason'],
        additionalProperties: false,
      },
    });
    const job = app.stores.gatewayJobs.get(r.jobId)!;
    expect(job).toMatchObject({
      kind: 'gate',
      backend: 'anthropic',
      model: 'claude-haiku-4-5',
      outcome: 'ok',
      ref: 'test gate',
      inputTokens: 100,
      outputTokens: 20,
      attempts: 1,
      error: null,
    });
    // Haiku 4.5 prices: $1 per million tokens in, $5 out.
    expect(job.costUsd).toBeCloseTo(0.0002, 10);
    expect(job.durationMs).not.toBeNull();
  });

  it('returns text for a job without a schema, with the summary model', async () => {
    const gateway = await setUp();
    const r = await gateway.run({
      kind: 'summary',
      system: '[watchkeeper:summary] Summarise.',
      prompt:
        'Window: messages 0 to 1. Drop anything from messages before 0.\n\nPrevious summary: none.\n\nNew messages:\n[#0 user] hello\n[#1 assistant] hi',
    });
    expect(r).toMatchObject({ ok: true, text: '- [#0] user: hello\n- [#1] assistant: hi' });
    expect(gw.sim!.requests[0]!.model).toBe('claude-sonnet-4-5');
  });

  it('fails a job whose answer does not fit the schema, naming where', async () => {
    const gateway = await setUp({
      script: () => [{ type: 'text', text: '{"worth_remembering": "yes", "reason": "x"}' }],
    });
    const r = await gateway.run(GATE);
    expect(r).toMatchObject({ ok: false, outcome: 'invalid_output' });
    if (r.ok) return;
    expect(r.error).toMatch(/does not fit the schema: \$\.worth_remembering/);
    expect(app.stores.gatewayJobs.get(r.jobId)).toMatchObject({ outcome: 'invalid_output' });
    const notJson = await gateway.run({ ...GATE, kind: 'gate' });
    expect(notJson.ok).toBe(false);
  });

  it('checks a plain JSON schema too', async () => {
    const gateway = await setUp({
      script: () => [{ type: 'text', text: '```json\n{"n": 7}\n```' }],
    });
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', maximum: 5 } },
      required: ['n'],
    };
    const r = await gateway.run({ kind: 'gate', prompt: 'x', schema });
    expect(r).toMatchObject({ ok: false, outcome: 'invalid_output' });
    if (!r.ok) expect(r.error).toMatch(/\$\.n: must be at most 5/);
  });

  it('retries a 5xx with backoff and succeeds', async () => {
    let calls = 0;
    const flaky: SimScript = (r) => {
      calls += 1;
      if (calls < 3) throw new Error('overloaded');
      return gatewayScript(r);
    };
    const gateway = await setUp({ script: flaky, config: { retries: 3 } });
    const r = await gateway.run(GATE);
    expect(r).toMatchObject({ ok: true, attempts: 3 });
    expect(calls).toBe(3);
  });

  it('gives up after the configured retries and keeps the last error', async () => {
    const gateway = await setUp({
      script: () => {
        throw new Error('overloaded');
      },
      config: { retries: 1 },
    });
    const r = await gateway.run(GATE);
    expect(r).toMatchObject({ ok: false, outcome: 'failed', attempts: 2 });
    if (!r.ok) expect(r.error).toMatch(/HTTP 500 .*overloaded/);
  });

  it('times out a job that gets no answer', async () => {
    const never = controlledScript();
    never.hold('gate');
    const gateway = await setUp({ script: never.script, config: { timeoutMs: 100 } });
    const r = await gateway.run(GATE);
    never.release('gate');
    expect(r).toMatchObject({ ok: false, outcome: 'timed_out' });
  });

  it('runs at most `concurrency` jobs at once; the others wait their turn', async () => {
    const held = controlledScript();
    held.hold('gate');
    const gateway = await setUp({ script: held.script, config: { concurrency: 1 } });
    const first = gateway.run(GATE);
    const second = gateway.run(GATE);
    while (held.count('gate') === 0) await new Promise((r) => setTimeout(r, 5));
    // The second queues for the slot once it has read the budget (awaited).
    await expect.poll(() => gateway.state()).toMatchObject({ running: 1, waiting: 1 });
    expect(held.count('gate')).toBe(1);
    held.release('gate');
    expect((await first).ok && (await second).ok).toBe(true);
    expect(held.count('gate')).toBe(2);
  });

  it('refuses opus', async () => {
    const gateway = await setUp();
    const r = await gateway.run({ ...GATE, model: 'claude-opus-4-1' });
    expect(r).toMatchObject({ ok: false, outcome: 'failed' });
    expect(gw.sim!.requests).toHaveLength(0);
  });

  it('with no model configured, fails every job at once with the reason', async () => {
    const gateway = await setUp({ config: OFF });
    const r = await gateway.run(GATE);
    expect(r).toMatchObject({
      ok: false,
      outcome: 'unavailable',
      error: 'no model is configured for the gateway (test)',
      attempts: 0,
    });
    expect(await gateway.state()).toMatchObject({ available: false, backend: 'off' });
  });

  it('sums the cost per UTC day', async () => {
    const gateway = await setUp();
    await gateway.run(GATE);
    await gateway.run(GATE);
    app.clock.advance(24 * 3_600_000);
    await gateway.run(GATE);
    const days = await app.stores.gatewayJobs.perDay(0);
    expect(days.map((d) => [d.day, d.jobs])).toEqual([
      ['2026-01-02', 1],
      ['2026-01-01', 2],
    ]);
    expect(days[1]!.costUsd).toBeCloseTo(0.0004, 10);
    expect((await gateway.state()).spentTodayUsd).toBeCloseTo(0.0002, 10);
  });
});

describe('the daily budget in a fleet', () => {
  let other: Stores | null = null;
  afterEach(() => {
    other?.close();
    other = null;
  });

  /** Another instance on the test app's store, which spent `usd` on one job today. */
  const otherSpent = async (usd: number) => {
    other = openStores(testDatabaseUrl(app.dataDir) ?? join(app.dataDir, 'watchkeeper.db'), {
      instance: 'cluster-b',
    });
    await recordJobCost(other, usd, app.clock.now());
  };

  it("counts this instance's jobs against its own budget, not another instance's", async () => {
    const gateway = await setUp({ config: { dailyBudgetUsd: 0.0003 } });
    await otherSpent(0.001);
    expect(await gateway.state()).toMatchObject({
      spentTodayUsd: 0,
      budgetReached: false,
      fleetBudgetUsd: null,
      fleetSpentTodayUsd: null,
    });
    expect((await gateway.run(GATE)).ok).toBe(true);
    expect((await gateway.state()).spentTodayUsd).toBeCloseTo(0.0002, 10);
    expect((await gateway.state()).budgetReached).toBe(false);
  });

  it('holds every instance to the fleet cap when one is set, and says so once', async () => {
    const gateway = await setUp({ config: { dailyBudgetUsd: 1, fleetBudgetUsd: 0.0005 } });
    await otherSpent(0.0004);
    expect((await gateway.run(GATE)).ok).toBe(true);
    const state = await gateway.state();
    expect(state).toMatchObject({ budgetReached: true, fleetBudgetUsd: 0.0005 });
    expect(state.spentTodayUsd).toBeCloseTo(0.0002, 10);
    expect(state.fleetSpentTodayUsd).toBeCloseTo(0.0006, 10);

    const waiting = gateway.run(GATE);
    const said = () =>
      app.stores.events.list({ limit: 20 }).filter((e) => /budget/.test(e.message));
    while (said().length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(said().map((e) => e.message)).toEqual([
      "Model gateway: the fleet's daily budget of $0.0005 is spent ($0.0006 today by every instance); jobs wait until 00:00 UTC",
    ]);
    expect(gw.sim!.requests).toHaveLength(1);
    gateway.close();
    expect(await waiting).toMatchObject({ ok: false });
  });
});
