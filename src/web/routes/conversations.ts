/**
 * The Conversations page (seed 001's observability queries, seed 000's gate decisions): every
 * conversation with its summary state, stuck and failed summaries highlighted; one
 * conversation's messages, summary version chain, extracted memories and gate decisions; the
 * share-with-ops toggle of its scope. And the model gateway's jobs with their cost.
 */
import { Hono } from 'hono';

import { type JobOutcome, JOB_OUTCOMES } from '../../db/index.js';
import { parseConversationId, parseScope } from '../../conversations/index.js';
import { isAppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { errorFromAppError } from '../errors.js';
import { page } from '../render.js';

const MESSAGES_SHOWN = 200;
const JOBS_SHOWN = 200;

/** Only a path on this site is followed back after a form (never another origin). */
function backTo(value: unknown, fallback: string): string {
  return typeof value === 'string' &&
    /^\/[A-Za-z0-9/_.:%-]*$/.test(value) &&
    !value.startsWith('//')
    ? value
    : fallback;
}

export function conversationRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { stores } = deps;

  app.get('/conversations', async (c) => {
    const now = deps.clock.now();
    const staleAfterMs = deps.conversations.options.staleAfterMs;
    const [conversations, total, stuck, progression, generation, gate, scopes, gateway] =
      await Promise.all([
        stores.conversations.list({ limit: 200 }),
        stores.conversations.count(),
        stores.summaries.stuck(now - staleAfterMs),
        stores.summaries.progression(20),
        stores.summaries.generationStats(),
        stores.extractions.gateStats(),
        stores.scopes.list(),
        deps.gateway.state(),
      ]);
    return page(
      c,
      'pages/conversations',
      { title: 'Conversations', nav: 'conversations' },
      { conversations, total, stuck, staleAfterMs, progression, generation, gate, scopes, gateway },
    );
  });

  app.get('/conversations/:id', async (c) => {
    const id = parseConversationId(c.req.param('id'));
    const conv = await deps.conversations.get(id);
    const now = deps.clock.now();
    const staleAfterMs = deps.conversations.options.staleAfterMs;
    const [shared, messages, summaries, latest, stuck, generation, memories, windows, gate] =
      await Promise.all([
        stores.scopes.isShared(conv.scope),
        stores.conversations.latestMessages(id, MESSAGES_SHOWN),
        stores.summaries.history(id),
        stores.summaries.latestCompleted(id),
        stores.summaries.stuck(now - staleAfterMs, id),
        stores.summaries.generationStats(id),
        stores.extractions.memories(id),
        stores.extractions.windows(id),
        stores.extractions.gateStats(id),
      ]);
    return page(
      c,
      'pages/conversation',
      { title: `Conversation ${id}`, nav: 'conversations' },
      {
        conv,
        shared,
        messages,
        shownMessages: MESSAGES_SHOWN,
        summaries,
        latest,
        stuckIds: new Set(stuck.map((s) => s.id)),
        generation,
        memories,
        windows,
        gate,
        gateway: await deps.gateway.state(),
        staleAfterMs,
      },
    );
  });

  // The share-with-ops toggle: the ops sessions' memory block includes the scope's memories.
  app.post('/conversations/scopes/:name/share', async (c) => {
    const form = await c.req.parseBody();
    let name: string;
    try {
      name = parseScope(c.req.param('name'), 'scope');
    } catch (err) {
      if (isAppError(err)) return errorFromAppError(c, err);
      throw err;
    }
    const shared = form.shared === '1';
    await deps.conversations.share(name, shared);
    deps.log.info('memory scope sharing changed from the dashboard', { scope: name, shared });
    return c.redirect(backTo(form.next, '/conversations'), 303);
  });

  app.get('/gateway', async (c) => {
    const kind = c.req.query('kind') || undefined;
    const rawOutcome = c.req.query('outcome') || undefined;
    const outcome = (JOB_OUTCOMES as readonly string[]).includes(rawOutcome ?? '')
      ? (rawOutcome as JobOutcome)
      : undefined;
    const filter = { ...(kind ? { kind } : {}), ...(outcome ? { outcome } : {}) };
    const [jobs, total, days, gateway] = await Promise.all([
      stores.gatewayJobs.list({ ...filter, limit: JOBS_SHOWN }),
      stores.gatewayJobs.count(filter),
      stores.gatewayJobs.perDay(deps.clock.now() - 30 * 86_400_000),
      deps.gateway.state(),
    ]);
    return page(
      c,
      'pages/gateway',
      { title: 'Model gateway', nav: 'gateway' },
      {
        jobs,
        total,
        days,
        gateway,
        kind: kind ?? '',
        outcome: outcome ?? '',
        outcomes: JOB_OUTCOMES,
      },
    );
  });

  return app;
}
