/**
 * Seed 001's sliding-window summaries against the real store and the real gateway, whose
 * backend is the simulated Messages API: the window table, the round-by-round timeline and the
 * memory table evolution of the seed, stale processing rows, failures.
 */
import { afterEach, describe, expect, it } from 'vitest';

import type { Conversations } from '../../src/conversations/index.js';
import { gatewayScript } from '../../src/sim/gateway-jobs.js';
import { testApp, type TestApp } from '../helpers/db.js';
import { blockingDuring } from '../helpers/postgres.js';
import {
  controlledScript,
  conversationsOver,
  OFF,
  type SimGateway,
  simGateway,
} from '../helpers/gateway.js';

let app: TestApp;
let gw: SimGateway;
let conv: Conversations;

afterEach(async () => {
  await conv?.close();
  await gw?.close();
  app?.close();
});

async function setUp(script = controlledScript()) {
  app = testApp();
  gw = await simGateway(app, { script: script.script });
  conv = conversationsOver(app, gw.gateway);
  return script;
}

/** Round n (from 1): the user's message at seq 2n-2 and the assistant's at 2n-1. */
async function say(id: string, seq: number): Promise<void> {
  const round = Math.floor(seq / 2) + 1;
  const outcome = await conv.post(id, {
    role: seq % 2 === 0 ? 'user' : 'assistant',
    content:
      seq % 2 === 0 ? `round ${round} question about topic ${round}` : `round ${round} answer`,
  });
  expect(outcome.kind).toBe('created');
}

const rows = async (id: string) =>
  (await app.stores.summaries.history(id)).reverse().map((s) => ({
    id: s.id,
    start: s.startSeq,
    end: s.endSeq,
    base: s.baseSummaryId,
    status: s.status,
  }));

describe('sliding-window summaries (seed 001)', () => {
  it('computes the window of the seed table from the last saved seq', async () => {
    await setUp();
    for (let seq = 0; seq <= 19; seq += 1) {
      await say('c1', seq);
      await conv.idle();
    }
    const byEnd = new Map((await rows('c1')).map((r) => [r.end, [r.start, r.end]]));
    expect([5, 13, 15, 19].map((end) => byEnd.get(end))).toEqual([
      [0, 5],
      [0, 13],
      [2, 15],
      [6, 19],
    ]);
    // Nothing before seq 5 triggered, and every window start is even (pairs stay together).
    expect(Math.min(...byEnd.keys())).toBe(5);
    expect((await rows('c1')).every((r) => r.start % 2 === 0 && r.status === 'completed')).toBe(
      true,
    );
  });

  it('claims, writes and reads its summaries without blocking on the database', async () => {
    await setUp();
    const blocked = await blockingDuring(app.stores.db, async () => {
      for (let seq = 0; seq <= 7; seq += 1) {
        await say('c1', seq);
        await conv.idle();
      }
      const ctx = await conv.context('c1');
      expect(ctx.summary).toMatchObject({ startSeq: 0, endSeq: 7, status: 'completed' });
      expect(ctx.gapMessages).toEqual([]);
    });
    expect(blocked).toBe(0);
    expect((await rows('c1')).map((r) => [r.end, r.status])).toEqual([
      [5, 'completed'],
      [7, 'completed'],
    ]);
  });

  it('follows the round-by-round timeline and the memory table evolution of the seed', async () => {
    const s = await setUp();
    s.hold('summary');
    for (let seq = 0; seq <= 5; seq += 1) await say('c42', seq); // rounds 1-3
    expect(await rows('c42')).toEqual([
      { id: 1, start: 0, end: 5, base: null, status: 'processing' },
    ]);

    // Round 4 starts: no completed summary yet (id 1 is processing), raw messages 0-6.
    await say('c42', 6);
    let ctx = await conv.context('c42');
    expect(ctx.summary).toBeNull();
    expect(ctx.gapMessages.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(ctx.processing?.id).toBe(1);
    // Round 4 ends (seq 7): id 1 still processing, so the trigger is skipped, not queued.
    await say('c42', 7);
    expect(await rows('c42')).toHaveLength(1);

    s.release('summary');
    await conv.idle();
    // Round 5 starts: summary 1 (end 5) plus the gap 6-8 (round 4 and the current user message).
    await say('c42', 8);
    ctx = await conv.context('c42');
    expect(ctx.summary?.id).toBe(1);
    expect(ctx.summary?.endSeq).toBe(5);
    expect(ctx.gapMessages.map((m) => m.seq)).toEqual([6, 7, 8]);

    s.hold('summary');
    await say('c42', 9); // round 5 ends: (0, 9) based on 1
    await say('c42', 10);
    await say('c42', 11); // round 6 ends while 2 is processing: skipped
    s.release('summary');
    await conv.idle();
    await say('c42', 12);
    await say('c42', 13); // round 7: (0, 13) based on 2
    await conv.idle();
    await say('c42', 14);
    s.hold('summary');
    await say('c42', 15); // round 8: (2, 15) based on 3, the window starts sliding
    await say('c42', 16);
    await say('c42', 17); // round 9 ends while 4 is processing: skipped
    s.release('summary');
    await conv.idle();
    await say('c42', 18);
    await say('c42', 19); // round 10: (6, 19) based on 4
    await conv.idle();

    expect(await rows('c42')).toEqual([
      { id: 1, start: 0, end: 5, base: null, status: 'completed' },
      { id: 2, start: 0, end: 9, base: 1, status: 'completed' },
      { id: 3, start: 0, end: 13, base: 2, status: 'completed' },
      { id: 4, start: 2, end: 15, base: 3, status: 'completed' },
      { id: 5, start: 6, end: 19, base: 4, status: 'completed' },
    ]);
    // What fell out of the window is gone from the summary; what is inside is kept.
    const text = async (id: number) => (await app.stores.summaries.get(id))!.text!;
    expect(await text(4)).not.toMatch(/\[#[01]\]/);
    expect(await text(4)).toMatch(/\[#2\][\s\S]*\[#15\]/);
    expect(await text(5)).not.toMatch(/\[#[0-5]\]/);
    expect(await text(5)).toMatch(/\[#6\][\s\S]*\[#19\]/);
    // Incremental: summary 4 was sent only the messages after summary 3 (14 and 15).
    const prompt4 = gw.sim!.requests.find((r) => r.prompt.includes('Window: messages 2 to 15'))!;
    expect(prompt4.prompt).toContain('Drop anything from messages before 2');
    expect(prompt4.prompt.slice(prompt4.prompt.indexOf('New messages:'))).toMatch(
      /^New messages:\n\[#14 user\][^\n]*\n\[#15 assistant\][^\n]*$/,
    );
    // Each completed row records how long the model took, and its gateway job.
    for (const r of await app.stores.summaries.history('c42')) {
      expect(r.generationTimeMs).not.toBeNull();
      expect(app.stores.gatewayJobs.get(r.jobId!)?.kind).toBe('summary');
    }
    // Round 11 starts: the latest summary (6-19) and the current user message.
    await say('c42', 20);
    ctx = await conv.context('c42');
    expect(ctx.summary?.id).toBe(5);
    expect(ctx.gapMessages.map((m) => m.seq)).toEqual([20]);
  });

  it('marks a processing row older than the limit failed, so the next round triggers again', async () => {
    const s = await setUp();
    s.hold('summary');
    for (let seq = 0; seq <= 5; seq += 1) await say('c1', seq);
    app.clock.advance(5 * 60_000 + 1000);
    expect(await app.stores.summaries.stuck(app.clock.now() - 5 * 60_000)).toHaveLength(1);
    await say('c1', 6);
    await say('c1', 7);
    const [first, second] = (await app.stores.summaries.history('c1')).reverse();
    expect(first).toMatchObject({ id: 1, status: 'failed' });
    expect(first!.error).toMatch(/still processing after the 300s limit/);
    expect(second).toMatchObject({ id: 2, startSeq: 0, endSeq: 7, status: 'processing' });
    // The late answer to the stale job does not revive it.
    s.release('summary');
    await conv.idle();
    expect((await app.stores.summaries.get(1))!.status).toBe('failed');
    expect((await app.stores.summaries.get(2))!.status).toBe('completed');
  });

  it('keeps the error of a failed summary, never completes an empty one, and tries again next round', async () => {
    let mode: 'error' | 'empty' | 'ok' = 'error';
    await setUp(
      controlledScript((r) => {
        if (/\[watchkeeper:summary\]/.test(r.system) && mode === 'error') {
          throw new Error('model overloaded');
        }
        if (/\[watchkeeper:summary\]/.test(r.system) && mode === 'empty') {
          return [{ type: 'text', text: '   ' }];
        }
        return gatewayScript(r);
      }),
    );
    for (let seq = 0; seq <= 5; seq += 1) await say('c1', seq);
    await conv.idle();
    mode = 'empty';
    await say('c1', 6);
    await say('c1', 7);
    await conv.idle();
    mode = 'ok';
    await say('c1', 8);
    await say('c1', 9);
    await conv.idle();
    const history = (await app.stores.summaries.history('c1')).reverse();
    expect(history.map((h) => h.status)).toEqual(['failed', 'failed', 'completed']);
    expect(history[0]!.error).toMatch(/HTTP 500.*model overloaded/);
    expect(history[1]!.error).toBe('the model returned an empty summary');
    expect(history[0]!.text).toBeNull();
    // The first completed summary has no completed base: it summarises the whole window.
    expect(history[2]).toMatchObject({ startSeq: 0, endSeq: 9, baseSummaryId: null });
    expect((await conv.context('c1')).summary?.id).toBe(history[2]!.id);
  });

  it('with no model configured, stores messages, makes no summary and answers with raw messages', async () => {
    app = testApp();
    gw = await simGateway(app, { config: OFF });
    conv = conversationsOver(app, gw.gateway);
    for (let seq = 0; seq <= 19; seq += 1) await say('c1', seq);
    await conv.idle();
    expect(await app.stores.summaries.history('c1')).toEqual([]);
    const ctx = await conv.context('c1');
    expect(ctx.summary).toBeNull();
    expect(ctx.gapMessages.map((m) => m.seq)).toEqual([...Array(20).keys()]);
    expect(await app.stores.gatewayJobs.count()).toBe(0);
  });
});
