/**
 * A session's detail, which the dashboard and scripts poll while a session runs: the API and the
 * page read the session, its chain, children, events and records awaited, so that on PostgreSQL
 * (this file also runs there) a poll never holds serve's event loop while the server answers.
 */
import { describe, expect, it } from 'vitest';

import { blockingDuring } from '../helpers/postgres.js';
import { eachTestSignedIn, type SignedIn, TOKEN, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

async function chainOfThree() {
  const at = h.clock.now();
  const root = h.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: at });
  const mid = h.stores.sessions.start({
    trigger: 'manual',
    tier: 2,
    startedAt: at,
    parentSessionId: root,
  });
  const leaf = h.stores.sessions.start({
    trigger: 'manual',
    tier: 3,
    startedAt: at,
    parentSessionId: mid,
  });
  for (const [i, message] of ['disk 91% full', 'pruned old snapshots'].entries()) {
    h.stores.events.insert({
      sessionId: mid,
      source: 'agent',
      level: 'warning',
      service: 'nas',
      message,
      createdAt: at + i,
    });
  }
  h.stores.sessionRecords.setSystemPrompt(mid, '## Operational Memory\n- nas fills up on Sundays');
  await h.stores.sessionRecords.recordChecks(
    mid,
    [{ service: 'nas', health: 'degraded', detail: 'disk 91% full', source: 'marker' }],
    at,
  );
  return { root, mid, leaf };
}

describe("a session's detail", () => {
  it('answers with its chain, children, events and records, waiting on no statement', async () => {
    const { root, mid, leaf } = await chainOfThree();
    let body: Record<string, unknown> = {};
    const blocked = await blockingDuring(h.stores.db, async () => {
      const res = await h.request(`/api/v1/sessions/${mid}`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(200);
      body = (await res.json()) as Record<string, unknown>;
    });
    expect(body).toMatchObject({
      id: mid,
      parent_session_id: root,
      children: [leaf],
      alert_repeats: 0,
      system_prompt: expect.stringContaining('nas fills up on Sundays'),
    });
    expect((body.events as { message: string }[]).map((e) => e.message)).toEqual([
      'disk 91% full',
      'pruned old snapshots',
    ]);
    expect(body.services_checked).toEqual([
      expect.objectContaining({ service: 'nas', health: 'degraded' }),
    ]);
    expect(blocked).toBe(0);
  });

  it('shows its page with the chain and the events', async () => {
    const { root, mid, leaf } = await chainOfThree();
    const res = await h.request(`/sessions/${mid}`, { headers: { Cookie: auth.cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const text of [
      `#${root}`,
      `#${leaf}`,
      'pruned old snapshots',
      'nas fills up on Sundays',
    ]) {
      expect(html).toContain(text);
    }
  });
});
