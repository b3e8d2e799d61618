/**
 * Conversation memory over HTTP: posting messages (limits, idempotency, conflicts), the context
 * answer, the observability routes, scopes, the gateway's jobs, and the Conversations pages; end
 * to end, a 30-round conversation with the gateway on the simulated Messages API, and one with no
 * model configured.
 */
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import type { GatewayConfig } from '../../src/config/index.js';
import { openStores } from '../../src/db/index.js';
import { gatewayScript } from '../../src/sim/gateway-jobs.js';
import { type SimulatedModel, startSimulatedModel } from '../../src/sim/messages-api.js';
import { recordJobCost, simConversations } from '../helpers/gateway.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness | undefined;
let sim: SimulatedModel | undefined;

afterEach(async () => {
  await sim?.close();
  h?.close();
  h = undefined;
  sim = undefined;
});

const BEARER = { Authorization: `Bearer ${TOKEN}` };

function post(id: string, body: unknown, raw?: string) {
  return h!.request(`/api/v1/conversations/${encodeURIComponent(id)}/messages`, {
    method: 'POST',
    headers: { ...BEARER, 'Content-Type': 'application/json' },
    body: raw ?? JSON.stringify(body),
  });
}

async function get(path: string) {
  const res = await h!.request(path, { headers: BEARER });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function withSim(options = {}, config: Partial<GatewayConfig> = {}) {
  sim = await startSimulatedModel(gatewayScript);
  const built = simConversations(sim.url, options, config);
  h = webHarness({ conversations: built.build });
  return built.ref;
}

describe('POST /api/v1/conversations/{id}/messages', () => {
  it('numbers messages in order and answers 201 with the stored message', async () => {
    h = webHarness();
    const first = await post('c42', { role: 'user', content: 'hello' });
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({
      conversation_id: 'c42',
      scope: 'conversation:c42',
      seq: 0,
      role: 'user',
      content: 'hello',
      duplicate: false,
    });
    const second = await post('c42', { role: 'assistant', content: 'hi' });
    expect(((await second.json()) as { seq: number }).seq).toBe(1);
  });

  it('is idempotent on (conversation, seq) when the client sends the seq', async () => {
    h = webHarness();
    expect((await post('c1', { role: 'user', content: 'a', seq: 0 })).status).toBe(201);
    const retry = await post('c1', { role: 'user', content: 'a', seq: 0 });
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ seq: 0, duplicate: true });
    const other = await post('c1', { role: 'user', content: 'b', seq: 0 });
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({
      error: { code: 'conflict', field: 'seq' },
      expected_seq: 1,
    });
    const gap = await post('c1', { role: 'user', content: 'c', seq: 5 });
    expect(gap.status).toBe(409);
    expect(((await gap.json()) as { error: { message: string } }).error.message).toMatch(
      /would leave a gap.*next seq is 1/,
    );
    expect((await h.stores.conversations.get('c1'))!.messageCount).toBe(1);
  });

  it.each([
    [{ role: 'robot', content: 'x' }, 'role'],
    [{ role: 'user', content: '   ' }, 'content'],
    [{ role: 'user', content: 'x'.repeat(100_001) }, 'content'],
    [{ role: 'user', content: 'bell \u0007' }, 'content'],
    [{ role: 'user', content: 'x', seq: -1 }, 'seq'],
    [{ role: 'user', content: 'x', seq: 1.5 }, 'seq'],
    [{ role: 'user', content: 'x', scope: 'ops' }, 'scope'],
    [{ role: 'user', content: 'x', colour: 'red' }, 'colour'],
  ])('refuses a bad field (%#) with a 400 naming it, storing nothing', async (body, field) => {
    h = webHarness();
    const res = await post('c1', body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { field: string } }).error.field).toBe(field);
    expect(await h.stores.conversations.get('c1')).toBeNull();
  });

  it('refuses a bad conversation id, a body that is not JSON, and a body over the limit', async () => {
    h = webHarness();
    const badId = await post('no spaces!', { role: 'user', content: 'x' });
    expect(badId.status).toBe(400);
    expect(((await badId.json()) as { error: { field: string } }).error.field).toBe('id');
    expect((await post('c1', null, '{"role": "user",')).status).toBe(400);
    const huge = await post(
      'c1',
      null,
      JSON.stringify({ role: 'user', content: 'x'.repeat(700_000) }),
    );
    expect(huge.status).toBe(413);
    expect(await h.stores.conversations.count()).toBe(0);
  });

  it('needs the bearer token', async () => {
    h = webHarness();
    const res = await h.request('/api/v1/conversations/c1/messages', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ role: 'user', content: 'x' }),
    });
    expect(res.status).toBe(401);
  });
});

describe('a conversation end to end over HTTP', () => {
  it('30 rounds with the simulated gateway: the summary chain, extracted memories and a context with all three', async () => {
    const ref = await withSim();
    const facts: Record<number, string> = {
      2: 'We decided to use Postgres for the billing service.',
      9: 'I prefer short answers without bullet lists.',
    };
    for (let round = 1; round <= 30; round += 1) {
      const user = facts[round] ?? `Round ${round}: what about item ${round}?`;
      expect((await post('c42', { role: 'user', content: user })).status).toBe(201);
      const ctx = await get('/api/v1/conversations/c42/context');
      expect(ctx.status).toBe(200);
      expect((await post('c42', { role: 'assistant', content: `Answer ${round}.` })).status).toBe(
        201,
      );
      await ref.conversations!.idle();
    }
    // Round 31 starts: the user asks about something said in round 2 (long out of the window).
    await post('c42', { role: 'user', content: 'Why Postgres for the billing service?' });
    const { body: ctx } = await get('/api/v1/conversations/c42/context');
    expect(ctx).toMatchObject({ summary_id: 28, start_seq: 46, end_seq: 59, omitted_messages: 0 });
    expect(ctx.summary).toMatch(/^- \[#46\] user: Round 24/);
    expect(ctx.summary).not.toMatch(/\[#4[0-5]\]/);
    expect(ctx.gap_messages.map((m: { seq: number }) => m.seq)).toEqual([60]);
    expect(ctx.memories.map((m: { observation: string }) => m.observation)).toContain(
      'We decided to use Postgres for the billing service.',
    );
    expect(ctx.memories[0]).toMatchObject({ scope: 'conversation:c42', importance: 'high' });

    const { body: s } = await get('/api/v1/conversations/c42/summaries');
    const chain = [...s.history].reverse();
    expect(chain).toHaveLength(28);
    expect(
      chain
        .slice(0, 6)
        .map((x: { start_seq: number; end_seq: number }) => [x.start_seq, x.end_seq]),
    ).toEqual([
      [0, 5],
      [0, 7],
      [0, 9],
      [0, 11],
      [0, 13],
      [2, 15],
    ]);
    chain.forEach(
      (
        x: { status: string; base_summary_id: number | null; id: number; window_size: number },
        i: number,
      ) => {
        expect(x.status).toBe('completed');
        expect(x.base_summary_id).toBe(i === 0 ? null : chain[i - 1].id);
        expect(x.window_size).toBeLessThanOrEqual(14);
      },
    );
    expect(s.stuck).toEqual([]);
    expect(s.generation.total_summaries).toBe(28);

    const { body: ex } = await get('/api/v1/conversations/c42/extractions');
    const stored = ex.memories.map((m: { observation: string; source_ref: string }) => [
      m.observation,
      m.source_ref,
    ]);
    expect(stored).toContainEqual([
      'I prefer short answers without bullet lists.',
      expect.stringMatching(/^conversation c42 #\d+-\d+$/),
    ]);
    expect(ex.gate.windows).toBeGreaterThan(0);
    const memory = h!.stores.memories
      .list({ status: 'all' })
      .find((m) => m.observation === 'We decided to use Postgres for the billing service.')!;
    expect(memory).toMatchObject({ source: 'conversation', scope: 'conversation:c42' });
    expect(memory.sourceRef).toMatch(/^conversation c42 #\d+-\d+$/);

    const { body: jobs } = await get('/api/v1/gateway/jobs?kind=summary');
    expect(jobs.total).toBe(28);
    expect(jobs.jobs[0]).toMatchObject({ kind: 'summary', outcome: 'ok', backend: 'anthropic' });
    expect(jobs.per_day[0].jobs).toBeGreaterThan(28);
    expect(jobs.state).toMatchObject({ available: true, backend: 'anthropic' });
  });

  it('with no model configured, the context answer is the raw recent messages', async () => {
    h = webHarness();
    for (let seq = 0; seq < 30; seq += 1) {
      await post('c1', { role: seq % 2 === 0 ? 'user' : 'assistant', content: `message ${seq}` });
    }
    const { body } = await get('/api/v1/conversations/c1/context');
    expect(body).toMatchObject({ summary: null, summary_id: null, start_seq: null, memories: [] });
    expect(body.gap_messages).toHaveLength(30);
    expect(body.gap_messages[29]).toMatchObject({ seq: 29, content: 'message 29' });
    const { body: jobs } = await get('/api/v1/gateway/jobs');
    expect(jobs.state).toMatchObject({ available: false, backend: 'off' });
  });
});

describe('listing, detail, scopes and pages', () => {
  it('lists conversations and shows one with its messages; 404 for an unknown one', async () => {
    h = webHarness();
    await post('c1', { role: 'user', content: 'hello' });
    await post('c2', { role: 'user', content: 'hi', scope: 'team' });
    const { body } = await get('/api/v1/conversations');
    expect(body.total).toBe(2);
    expect(body.conversations.map((c: { id: string }) => c.id).sort()).toEqual(['c1', 'c2']);
    const { body: one } = await get('/api/v1/conversations/c2');
    expect(one).toMatchObject({
      id: 'c2',
      scope: 'team',
      message_count: 1,
      shared_with_ops: false,
    });
    expect(one.messages).toEqual([expect.objectContaining({ seq: 0, content: 'hi' })]);
    expect((await get('/api/v1/conversations/nope')).status).toBe(404);
    expect((await get('/api/v1/conversations/nope/context')).status).toBe(404);
    // A later message may not move the conversation to another scope.
    const moved = await post('c2', { role: 'assistant', content: 'x', scope: 'other' });
    expect(moved.status).toBe(409);
  });

  it('shares a scope with ops over the API and from the dashboard toggle', async () => {
    h = webHarness();
    await post('c1', { role: 'user', content: 'hello', scope: 'team' });
    const put = await h.request('/api/v1/scopes/team', {
      method: 'PUT',
      headers: { ...BEARER, 'Content-Type': 'application/json' },
      body: JSON.stringify({ shared_with_ops: true }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({
      name: 'team',
      shared_with_ops: true,
      conversations: 1,
    });
    expect(await h.stores.scopes.shared()).toEqual(['team']);
    const bad = await h.request('/api/v1/scopes/ops', {
      method: 'PUT',
      headers: { ...BEARER, 'Content-Type': 'application/json' },
      body: JSON.stringify({ shared_with_ops: true }),
    });
    expect(bad.status).toBe(400);

    const { cookie, csrf } = await h.login();
    const page = await (
      await h.request('/conversations/c1', { headers: { Cookie: cookie } })
    ).text();
    expect(page).toContain('shared with ops');
    const form = await h.request('/conversations/scopes/team/share', {
      method: 'POST',
      headers: {
        Cookie: cookie,
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'http://localhost',
      },
      body: new URLSearchParams({ _csrf: csrf, shared: '0', next: '/conversations/c1' }),
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/conversations/c1');
    expect(await h.stores.scopes.shared()).toEqual([]);
    // Without the CSRF token nothing changes.
    const forged = await h.request('/conversations/scopes/team/share', {
      method: 'POST',
      headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ shared: '1' }),
    });
    expect(forged.status).toBe(403);
    expect(await h.stores.scopes.shared()).toEqual([]);
  });

  it('highlights a stuck summary and shows failed ones with their error', async () => {
    h = webHarness();
    await post('c1', { role: 'user', content: 'hello' });
    const stuck = (await h.stores.summaries.claim('c1', 0, 0, h.clock.now()))!;
    h.clock.advance(10 * 60_000);
    const { cookie } = await h.login();
    const list = await (await h.request('/conversations', { headers: { Cookie: cookie } })).text();
    expect(list).toContain('id="stuck-summaries"');
    expect(list).toContain(`summary #${stuck.id}`);
    const detail = await (
      await h.request('/conversations/c1', { headers: { Cookie: cookie } })
    ).text();
    expect(detail).toMatch(/<tr id="summary-1" class="stuck">/);
    await h.stores.summaries.fail(stuck.id, 'model <overloaded>', 5, null, h.clock.now());
    const after = await (
      await h.request('/conversations/c1', { headers: { Cookie: cookie } })
    ).text();
    expect(after).toMatch(/<tr id="summary-1" class="failed-row">/);
    expect(after).toContain('model &lt;overloaded&gt;');
    const { body } = await get('/api/v1/conversations/c1/summaries');
    expect(body.history[0]).toMatchObject({ status: 'failed', error: 'model <overloaded>' });
  });

  it('shows the gateway jobs with their cost, and the cost of the day on the overview', async () => {
    const ref = await withSim();
    for (let seq = 0; seq < 6; seq += 1) {
      await post('c1', { role: seq % 2 ? 'assistant' : 'user', content: `message ${seq}` });
    }
    await ref.conversations!.idle();
    const { cookie } = await h!.login();
    const page = await (await h!.request('/gateway', { headers: { Cookie: cookie } })).text();
    expect(page).toMatch(/<tr id="job-1"/);
    expect(page).toContain('conversation c1 summary #1 (0-5)');
    // A summary job of the simulated model: sonnet prices, 100 tokens in and 20 out.
    expect(page).toContain('$0.0006');
    const overview = await (await h!.request('/', { headers: { Cookie: cookie } })).text();
    expect(overview).toContain('id="gateway-cost"');
    expect(overview).toMatch(/Model gateway today[\s\S]*\$0\.0006/);
    expect((await get('/api/v1/gateway/jobs?outcome=weird')).status).toBe(400);
  });

  it("shows the fleet's spending beside this instance's when the fleet has a cap", async () => {
    await withSim({}, { dailyBudgetUsd: 1, fleetBudgetUsd: 0.0005 });
    const other = openStores(join(h!.dataDir, 'watchkeeper.db'), { instance: 'cluster-b' });
    try {
      await recordJobCost(other, 0.0006, h!.clock.now());
    } finally {
      other.close();
    }
    const { cookie } = await h!.login();
    const page = await (await h!.request('/gateway', { headers: { Cookie: cookie } })).text();
    expect(page).toMatch(/This instance today<\/div>\s*<div class="value">\$0\.0000<\/div>/);
    expect(page).not.toMatch(/daily budget of \$1\.00: spent/);
    expect(page).toMatch(
      /The fleet today<\/div>\s*<div class="value">\$0\.0006<\/div>\s*<div class="sub">of the fleet's daily budget of \$0\.0005: spent, jobs wait until 00:00 UTC/,
    );
  });
});
