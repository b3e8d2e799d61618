/**
 * What a session got and did, for its page and the lists: the chain's summary (kept on the
 * chain's first session), the exact appended system prompt, token counts (the session's and the
 * chain's), and the services it checked with their health.
 */
import {
  type Health,
  type ServiceCheckRow,
  type SessionRow,
  type SessionSummary,
  type Stores,
  sumTokens,
  type TokenCounts,
  tokensOf,
} from '../db/index.js';
import type { SessionChain } from './session-chain.js';
import { tokens as n } from './view-helpers.js';

/** The badge colour of each health state (the status badges' palette). */
export const HEALTH_BADGE: Record<Health, string> = {
  healthy: 'completed',
  degraded: 'warning',
  down: 'critical',
  unreachable: 'stopped',
};

export interface SessionRecordView {
  /** The chain's summary and the session that holds it (the chain's first). */
  summary: SessionSummary | null;
  summaryRootId: number;
  systemPrompt: string | null;
  tokens: TokenCounts | null;
  chainTokens: TokenCounts | null;
  checks: ServiceCheckRow[];
  healthBadge: Record<Health, string>;
  /** The counts as the page shows them. */
  tokensText: string;
  chainTokensText: string;
}

export async function sessionRecordView(
  stores: Stores,
  s: SessionRow,
  chain: SessionChain,
): Promise<SessionRecordView> {
  const records = stores.sessionRecords;
  const chainRoot = chain.ancestors[0]?.id ?? s.id;
  // Read at once, awaited: on PostgreSQL the event loop goes on while the server answers.
  const [own, rootSummary, systemPrompt, checks] = await Promise.all([
    records.summaryAwaited(s.id),
    chainRoot === s.id ? null : records.summaryAwaited(chainRoot),
    records.systemPromptAwaited(s.id),
    records.checksAwaited(s.id),
  ]);
  // An imported Claude Ops session has a summary of its own (the Go sidecar wrote one per
  // session); a session of watchkeeper's shows its chain's, kept on the chain's first.
  const rootId = own !== null && own.status !== null ? s.id : chainRoot;
  const tokens = tokensOf(s.usage);
  const chainTokens = sumTokens(
    [...chain.ancestors, s, ...chain.descendants].map((x) => tokensOf(x.usage)),
  );
  return {
    summary: rootId === s.id ? own : rootSummary,
    summaryRootId: rootId,
    systemPrompt,
    tokens,
    chainTokens,
    checks,
    healthBadge: HEALTH_BADGE,
    tokensText: tokenText(tokens),
    chainTokensText: tokenText(chainTokens),
  };
}

/** `12,345 in · 678 out · 9,000 cache read · 1,200 cache write`. */
export function tokenText(t: TokenCounts | null): string {
  if (t === null) return '-';
  return `${n(t.input)} in · ${n(t.output)} out · ${n(t.cacheRead)} cache read · ${n(t.cacheWrite)} cache write`;
}

const tokensJson = (t: TokenCounts | null) =>
  t && {
    input: t.input,
    output: t.output,
    cache_read: t.cacheRead,
    cache_write: t.cacheWrite,
  };

/** The record's JSON (snake_case, ISO times) for GET /api/v1/sessions/{id}. */
export function sessionRecordJson(v: SessionRecordView) {
  const m = v.summary;
  return {
    summary:
      m && m.status !== null
        ? {
            text: m.text,
            source: m.source,
            status: m.status,
            error: m.error,
            job_id: m.jobId,
            session_id: v.summaryRootId,
            written_at: m.at === null ? null : new Date(m.at).toISOString(),
          }
        : null,
    system_prompt: v.systemPrompt,
    tokens: tokensJson(v.tokens),
    chain_tokens: tokensJson(v.chainTokens),
    services_checked: v.checks.map((c) => ({
      service: c.service,
      health: c.health,
      detail: c.detail,
      source: c.source,
    })),
  };
}
