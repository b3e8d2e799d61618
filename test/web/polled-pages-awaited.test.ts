/**
 * The pages and API answers that open dashboards and scripts poll every few seconds, and the
 * pages an operator opens beside them (Services, Runbooks, Conversations and a conversation's
 * reads, a memory's history, a search by service, the memories' export),
 * read awaited: on PostgreSQL (this file also runs there) none of them holds serve's event loop
 * while the server answers, so a database a network hop away slows each answer by its round
 * trips but never stalls the others, nor a running session's stream and hooks. Each is asked
 * twice with a write between, so that a cache kept until the database changes is read again.
 */
import { describe, expect, it } from 'vitest';

import { blockingDuring } from '../helpers/postgres.js';
import { eachTestSignedIn, type SignedIn, TOKEN, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

describe('what dashboards and scripts poll', () => {
  it('is read without blocking on the database, page and API alike', async () => {
    const at = h.clock.now();
    const session = h.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: at });
    const event = (message: string) =>
      h.stores.events.insert({
        sessionId: session,
        source: 'agent',
        level: 'warning',
        service: 'nas',
        message,
        createdAt: at,
      });
    event('disk 91% full');
    const { memory } = await h.knowledge.memory.add({
      service: 'nas',
      category: 'behavior',
      observation: 'the nas fan is loud under load',
    });
    const posted = await h.request('/api/v1/conversations/c1/messages', {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ role: 'user', content: 'is the nas fan loud?' }),
    });
    expect(posted.status).toBe(201);
    const pages = [
      '/',
      '/overview/activity',
      '/sessions',
      '/sessions/rows',
      '/sessions/queue',
      `/sessions/${session}`,
      // Not live in this process: the stream says how it ended, and closes.
      `/sessions/${session}/stream`,
      '/events',
      '/memories',
      '/cooldowns',
      '/notifications',
      '/gateway',
      '/services',
      '/services/nas',
      '/runbooks',
      '/conversations',
      '/conversations/c1',
      `/memories/${memory.id}/history`,
      '/memories/export',
    ];
    const apis = [
      '/api/v1/sessions',
      `/api/v1/sessions/${session}`,
      '/api/v1/events',
      '/api/v1/memories',
      `/api/v1/memories/${memory.id}`,
      '/api/v1/memories/search?q=fan',
      '/api/v1/memories/search?q=fan&service=nas',
      '/api/v1/memories/export',
      '/api/v1/cooldowns',
      '/api/v1/cooldowns/overrides',
      '/api/v1/notifications',
      '/api/v1/gateway/jobs',
      '/api/v1/services',
      '/api/v1/services/nas',
      `/api/v1/memories/${memory.id}/history`,
      '/api/v1/scopes',
      '/api/v1/conversations',
      '/api/v1/conversations/c1',
      '/api/v1/conversations/c1/context',
      '/api/v1/conversations/c1/summaries',
      '/api/v1/conversations/c1/extractions',
      '/api/v1/graph/stats',
      '/metrics',
    ];
    const blocked: Record<string, number[]> = {};
    for (const round of [1, 2]) {
      for (const path of [...pages, ...apis]) {
        const headers: Record<string, string> = pages.includes(path)
          ? { Cookie: auth.cookie }
          : { Authorization: `Bearer ${TOKEN}` };
        const n = await blockingDuring(h.stores.db, async () => {
          const res = await h.request(path, { headers });
          expect(res.status, path).toBe(200);
          await res.text();
        });
        (blocked[path] ??= []).push(n);
      }
      // What the second round reads changed: no cached table or count answers it.
      if (round === 1) event('disk 93% full');
    }
    expect(blocked).toEqual(Object.fromEntries([...pages, ...apis].map((p) => [p, [0, 0]])));
  });
});
