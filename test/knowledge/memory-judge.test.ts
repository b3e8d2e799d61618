/**
 * The model's verdict on a re-observation the rules cannot place (close to an active memory of
 * its service, short of a duplicate, no contradiction the rules read), end to end: the real
 * gateway, its anthropic backend, and the simulated model on loopback answering the
 * `memory-judge` job (src/sim/gateway-jobs.ts). Without the model, over the daily budget or past
 * the per-minute cap, the rules decide (the observation stays a memory of its own).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { MINUTE_MS } from '../../src/clock.js';
import { createMemoryJudge } from '../../src/gateway/index.js';
import { createKnowledge, type Knowledge } from '../../src/knowledge/index.js';
import { testApp, type TestApp } from '../helpers/db.js';
import {
  controlledScript,
  recordJobCost,
  type SimGateway,
  simGateway,
} from '../helpers/gateway.js';
import type { GatewayConfig } from '../../src/config/index.js';

/** The memory re-observations are judged against (lexically: embeddings are off here). */
const KEPT =
  'Jellyfin takes sixty seconds to come up after a restart of its container on the media host while the library cache warms and thumbnails load';
/**
 * Close to KEPT by words (Dice 0.4: between "related" 0.3 and "duplicate" 0.5), with no value of
 * its own to compare (the same values would be the same fact to the rules).
 */
const SAME = 'Jellyfin is slow to come up after a restart';
const BACKUPS = 'Backups of the media library go to the NAS over SMB';
/** Close to BACKUPS (0.33), a changed fact the rules do not read (no number, no negation). */
const UPDATE = 'The NAS backups now use NFS';
/** Close to BACKUPS (0.43), another fact about the service. */
const OTHER = 'The media library scan locks the NAS database at night';

let app: TestApp;
let gw: SimGateway;
let counted: ReturnType<typeof controlledScript>;
let knowledge: Knowledge;

async function setUp(
  config: Partial<GatewayConfig> = {},
  perMinute = 10,
  timeoutMs: number | undefined = undefined,
) {
  counted = controlledScript();
  gw = await simGateway(app, { script: counted.script, config });
  knowledge = createKnowledge({
    stores: app.stores,
    embedder: null,
    clock: app.clock,
    judge: createMemoryJudge({
      gateway: gw.gateway,
      clock: app.clock,
      model: 'haiku',
      perMinute,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    }),
  });
}

const observe = (observation: string) =>
  knowledge.memory.observe({
    service: 'jellyfin',
    category: 'timing',
    observation,
    sessionId: null,
    tier: 1,
  });

beforeEach(() => {
  app = testApp();
});

afterEach(async () => {
  await gw?.close();
  app.close();
});

describe('the memory judge through the gateway', () => {
  it('reinforces the memory the model names as saying the same, and records why', async () => {
    await setUp();
    const kept = await observe(KEPT);
    const again = await observe(SAME);
    expect(again).toMatchObject({
      action: 'reinforced',
      memory: { id: kept.memory.id },
      judged: { verdict: 'same', memoryId: kept.memory.id },
    });
    expect(counted.count('memory-judge')).toBe(1);
    const last = app.stores.memories.history(kept.memory.id).at(-1)!;
    expect(last).toMatchObject({ action: 'reinforced', observation: SAME });
    expect(last.evidence).toMatch(new RegExp(`^model judged: same #${kept.memory.id}: .+`));
    expect(app.stores.memories.list().filter((m) => m.active)).toHaveLength(1);
  });

  it('supersedes the memory the model says the observation updates', async () => {
    await setUp();
    const backups = await observe(BACKUPS);
    await observe(KEPT);
    const update = await observe(UPDATE);
    expect(update).toMatchObject({
      action: 'superseded',
      replaced: { id: backups.memory.id, active: false },
      judged: { verdict: 'updates', memoryId: backups.memory.id },
    });
    const old = app.stores.memories.history(backups.memory.id).at(-1)!;
    expect(old).toMatchObject({ action: 'superseded', relatedMemoryId: update.memory.id });
    expect(old.evidence).toMatch(/^model judged: updates #\d+: /);
  });

  it('keeps a different fact apart, with the verdict in its history', async () => {
    await setUp();
    await observe(BACKUPS);
    const other = await observe(OTHER);
    expect(other).toMatchObject({ action: 'created', judged: { verdict: 'different' } });
    expect(app.stores.memories.history(other.memory.id)[0]).toMatchObject({
      action: 'created',
      evidence: expect.stringMatching(/^model judged: different: /),
    });
    expect(app.stores.memories.list().filter((m) => m.active)).toHaveLength(2);
  });

  it('keeps the observation apart when the memory it names went away while the model thought', async () => {
    await setUp();
    const kept = await observe(KEPT);
    counted.hold('memory-judge');
    const pending = observe(SAME);
    await expect.poll(() => counted.count('memory-judge')).toBe(1);
    await knowledge.memory.deactivate([kept.memory.id]);
    counted.release('memory-judge');
    const again = await pending;
    expect(again).toMatchObject({ action: 'created', judged: { verdict: 'same' } });
    expect(again.memory.id).not.toBe(kept.memory.id);
    expect(app.stores.memories.get(kept.memory.id)!.active).toBe(false);
  });

  it('leaves it to the rules once the daily budget is spent, asking the model nothing', async () => {
    await setUp({ dailyBudgetUsd: 0.01 });
    await recordJobCost(app.stores, 0.02, app.clock.now());
    const kept = await observe(KEPT);
    const again = await observe(SAME);
    expect(again.action).toBe('created');
    expect(again.judged).toBeUndefined();
    expect(again.match?.memory.id).toBe(kept.memory.id);
    expect(counted.count('memory-judge')).toBe(0);
  });

  it('asks at most the per-minute cap, then again once the minute has passed', async () => {
    await setUp({}, 1);
    const kept = await observe(KEPT);
    const backups = await observe(BACKUPS);
    expect(await observe(SAME)).toMatchObject({
      action: 'reinforced',
      memory: { id: kept.memory.id },
      judged: { verdict: 'same' },
    });
    // The second within the minute: the rules (a memory of its own).
    const capped = await observe(OTHER);
    expect(capped.action).toBe('created');
    expect(capped.judged).toBeUndefined();
    expect(counted.count('memory-judge')).toBe(1);
    app.clock.advance(MINUTE_MS + 1);
    expect(await observe(UPDATE)).toMatchObject({
      action: 'superseded',
      replaced: { id: backups.memory.id },
      judged: { verdict: 'updates' },
    });
    expect(counted.count('memory-judge')).toBe(2);
  });

  it('leaves it to the rules when the model does not answer within the deadline, trying once', async () => {
    // Given retries, the gateway would try a timed-out job again; the judge tries once.
    await setUp({ retries: 3 }, 10, 300);
    await observe(KEPT);
    counted.hold('memory-judge'); // the model never answers
    const again = await observe(SAME);
    expect(again.action).toBe('created');
    expect(again.judged).toBeUndefined();
    expect(counted.count('memory-judge')).toBe(1);
    counted.release('memory-judge');
  });

  it('leaves it to the rules when the model is out of reach', async () => {
    await setUp({ url: 'http://127.0.0.1:1' });
    await observe(KEPT);
    const again = await observe(SAME);
    expect(again.action).toBe('created');
    expect(again.judged).toBeUndefined();
  });
});
