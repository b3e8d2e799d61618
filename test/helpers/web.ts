import { randomBytes } from 'node:crypto';

import { afterEach, beforeEach } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { AppError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import type { ChainRequest } from '../../src/runner/chain.js';
import { SessionFeed } from '../../src/runner/live-feed.js';
import type { RunTicket } from '../../src/runner/scheduler.js';
import { type AppEnv, createApp } from '../../src/web/app.js';
import type { NotificationsControl, RunnerControl, WebDeps } from '../../src/web/deps.js';
import type { Conversations } from '../../src/conversations/index.js';
import type { Embedder } from '../../src/embed/index.js';
import { createKnowledge } from '../../src/knowledge/index.js';
import type { Gateway } from '../../src/gateway/index.js';
import { testApp, type TestApp } from './db.js';
import { offConversations } from './gateway.js';
import type { Hono } from 'hono';

export const TOKEN = 'test-token-0123456789abcdef';

/** A RunnerControl that records what it is asked and runs nothing. */
export function fakeRunner(): RunnerControl & {
  requests: ChainRequest[];
  stops: number;
  queueLimit: number;
  end(id: string, state?: 'done' | 'failed' | 'cancelled'): void;
} {
  const tickets = new Map<string, RunTicket>();
  const waiters = new Map<string, ((ticket: RunTicket) => void)[]>();
  const fake = {
    requests: [] as ChainRequest[],
    stops: 0,
    queueLimit: 10,
    running: false,
    trigger(request: ChainRequest): RunTicket {
      if (fake.requests.length >= fake.queueLimit) {
        throw new AppError('busy', 'the run queue is full (10 waiting); try again later');
      }
      fake.requests.push(request);
      const ticket: RunTicket = {
        id: `ticket-${fake.requests.length}`,
        request,
        state: 'queued',
        queuedAt: Date.now(),
        sessionIds: [],
        outcome: null,
        error: null,
        repeats: 0,
        cancelledBy: null,
      };
      tickets.set(ticket.id, ticket);
      return ticket;
    },
    ticket: (id: string) => tickets.get(id) ?? null,
    // Nothing runs: a run ends when cancelled or when the test says so (`end`).
    settled(id: string): Promise<RunTicket | null> {
      const ticket = tickets.get(id);
      if (!ticket || ['done', 'failed', 'cancelled'].includes(ticket.state)) {
        return Promise.resolve(ticket ?? null);
      }
      return new Promise((resolve) => waiters.set(id, [...(waiters.get(id) ?? []), resolve]));
    },
    /** Ends a run as the scheduler would: its state, and whoever waits on it told. */
    end(id: string, state: 'done' | 'failed' | 'cancelled' = 'done') {
      const ticket = tickets.get(id)!;
      ticket.state = state;
      for (const resolve of waiters.get(id) ?? []) resolve(ticket);
      waiters.delete(id);
    },
    stopCurrent() {
      fake.stops += 1;
      return fake.running;
    },
    status: () => ({ running: null, queued: [], nextRunAt: null, schedule: '0 * * * *' }),
    // Every ticket waits: nothing runs.
    queue: () => ({
      running: null,
      queued: [...tickets.values()].filter((t) => t.state === 'queued'),
    }),
    cancel(id: string, actor: string) {
      const ticket = tickets.get(id);
      if (!ticket) return { outcome: 'not_found' as const, ticket: null };
      if (ticket.state !== 'queued') return { outcome: 'not_queued' as const, ticket };
      ticket.cancelledBy = actor;
      fake.end(id, 'cancelled');
      return { outcome: 'cancelled' as const, ticket };
    },
    cooldownState: async () => [],
    // The widest default window (the 24 h of REDEPLOY_WINDOW in src/config/guard.ts).
    cooldownHorizon: (now: number) => now - 24 * 3_600_000,
  };
  return fake;
}

/** A signed-in browser: its session cookie header and the page's CSRF token. */
export interface SignedIn {
  cookie: string;
  csrf: string;
}

export interface WebHarness extends TestApp {
  app: Hono<AppEnv>;
  feed: SessionFeed;
  runner: ReturnType<typeof fakeRunner>;
  /** Signs in with the token; returns the cookie header and the CSRF token. */
  login(): Promise<SignedIn>;
  request(path: string, init?: RequestInit): Promise<Response>;
}

/** The real app over a real (temp) database, with authentication on unless `open`. */
export function webHarness(
  opts: {
    open?: boolean;
    demo?: boolean;
    env?: Record<string, string>;
    /** Conversation memory over another gateway (default: no model configured). */
    conversations?: (base: TestApp) => { gateway: Gateway; conversations: Conversations };
    /** The notifier the Notifications page is given (default: none). */
    notifications?: (base: TestApp) => NotificationsControl;
    /** serve's answer to the Stop hook's challenge (default: none, as without serve). */
    endpointProof?: (challenge: string) => string;
    /** The knowledge layer embeds with this (default: none, lexical only). */
    embedder?: Embedder;
    /** How an upload is imported, given the app's data folder (default: in this process). */
    importFile?: (dataDir: string) => NonNullable<WebDeps['importFile']>;
  } = {},
): WebHarness {
  const plain = testApp();
  const knowledge = opts.embedder
    ? createKnowledge({ stores: plain.stores, embedder: opts.embedder, clock: plain.clock })
    : null;
  const base = knowledge ? { ...plain, knowledge, keeper: knowledge.memory } : plain;
  const { gateway, conversations } = (opts.conversations ?? offConversations)(base);
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: base.dataDir,
    // Pages show times in the operator's zone: pinned, so no test depends on the machine's.
    WATCHKEEPER_TZ: 'UTC',
    ...(opts.open ? {} : { WATCHKEEPER_AUTH_TOKEN: TOKEN }),
    ...opts.env,
  });
  const feed = new SessionFeed();
  const runner = fakeRunner();
  const app = createApp({
    config,
    stores: base.stores,
    knowledge: base.knowledge,
    conversations,
    gateway,
    feed,
    runner,
    clock: base.clock,
    log: silentLogger,
    demo: opts.demo ?? false,
    secret: randomBytes(32),
    ...(opts.notifications ? { notifications: opts.notifications(base) } : {}),
    ...(opts.endpointProof ? { endpointProof: opts.endpointProof } : {}),
    ...(opts.importFile ? { importFile: opts.importFile(base.dataDir) } : {}),
  });
  const request = (path: string, init: RequestInit = {}) =>
    Promise.resolve(
      app.request(`http://localhost${path}`, {
        ...init,
        headers: { Host: 'localhost', ...(init.headers as Record<string, string>) },
      }),
    );
  return {
    ...base,
    app,
    feed,
    runner,
    request,
    async login() {
      const res = await request('/login', {
        method: 'POST',
        body: new URLSearchParams({ token: TOKEN, next: '/' }),
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: 'http://localhost',
        },
      });
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
      const page = await (await request('/memories', { headers: { Cookie: cookie } })).text();
      const csrf = /&quot;X-CSRF-Token&quot;:&quot;([^&]+)&quot;/.exec(page)?.[1] ?? '';
      return { cookie, csrf };
    },
  };
}

/**
 * A fresh harness, signed in, for each test of the file, closed after it: `use` is handed both
 * before each test, e.g. `eachTestSignedIn((web) => ({ h, auth } = web))`.
 */
export function eachTestSignedIn(use: (web: { h: WebHarness; auth: SignedIn }) => void): void {
  let h: WebHarness | undefined;
  beforeEach(async () => {
    h = webHarness();
    use({ h, auth: await h.login() });
  });
  afterEach(() => h?.close());
}

/** The headers htmx sends from a signed-in page. */
export function htmxHeaders(auth: SignedIn, extra: Record<string, string> = {}) {
  return { Cookie: auth.cookie, 'X-CSRF-Token': auth.csrf, 'HX-Request': 'true', ...extra };
}

/** A watchkeeper export of one memory and a line that is not JSON (line 3), as uploaded. */
export const EXPORT_WITH_A_BAD_LINE = [
  JSON.stringify({ format: 'watchkeeper-memory/1', memories: 2 }),
  JSON.stringify({
    type: 'memory',
    text: 'vacuum runs nightly at 02:00',
    service: 'postgresql',
    category: 'maintenance',
    confidence: 0.7,
    created_at: '2026-01-01T00:00:00.000Z',
  }),
  '{oops',
].join('\n');
