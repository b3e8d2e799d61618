/**
 * One summary per chain (2-5 sentences, after the Go sidecar's summarizer), written in the
 * background once the chain ends, so it never holds up the next run: a `session-summary` job of
 * the model gateway, with the summary model (WATCHKEEPER_GATEWAY_MODEL_SUMMARY, the Go sidecar's
 * CLAUDEOPS_SUMMARY_MODEL). With no model (the gateway off, today's budget spent, or the job
 * failed), the final response's first lines stand in, labelled as such. Kept on the chain's
 * first session.
 */
import type { Clock } from '../clock.js';
import {
  createDatabaseOutage,
  type DatabaseOutage,
  type EventRow,
  isUnreachableError,
  type SessionRow,
  type Stores,
  untilReachable,
} from '../db/index.js';
import type { Gateway } from '../gateway/index.js';
import type { Logger } from '../log.js';
import { printable } from '../text-rules.js';

export const SESSION_SUMMARY_KIND = 'session-summary';

export const SESSION_SUMMARY_SYSTEM = `[watchkeeper:${SESSION_SUMMARY_KIND}] You summarise one unattended run of watchkeeper, an operations agent, for the operator's dashboard.
You get each session of the run in order (tier, model, status, events, final response). Summarize
what was checked, what was found, what was changed and what still needs a human, in 2-5 sentences
of plain text. No lists, no headings, no markers. Answer with the summary only.`;

const MAX_RESPONSE_CHARS = 4000;
const MAX_EVENTS = 20;
const FALLBACK_LINES = 3;
const FALLBACK_CHARS = 400;
const SUMMARY_LOOP = 'session summaries';
const MAX_SUMMARY_CHARS = 2000;
const MARKER_LINE = /^\s*(?:[-*+]\s+)?\[[A-Z]+:[^\]]*\]/;
const LEVEL_RANK: Record<string, number> = { critical: 0, warning: 1, info: 2 };

export type SummaryGateway = Pick<Gateway, 'run' | 'available' | 'offReason' | 'state'>;

/** What the model is asked: every session of the chain, with its events and final response. */
export function chainSummaryPrompt(
  sessions: readonly SessionRow[],
  eventsOf: (id: number) => readonly EventRow[],
): string {
  const first = sessions[0]!;
  const last = sessions[sessions.length - 1]!;
  const parts = [
    `Run: ${sessions.length} session(s), tier ${first.tier} to ${last.tier}, ended ${last.status} (trigger ${first.trigger}).`,
  ];
  for (const s of sessions) {
    const events = [...eventsOf(s.id)]
      .sort((a, b) => (LEVEL_RANK[a.level] ?? 3) - (LEVEL_RANK[b.level] ?? 3) || a.id - b.id)
      .slice(0, MAX_EVENTS)
      .map((e) => `- [${e.level}] ${e.service ?? 'general'}: ${printable(e.message, 300)}`);
    const response = s.response
      ? s.response.length > MAX_RESPONSE_CHARS
        ? `${s.response.slice(0, MAX_RESPONSE_CHARS)}\n[… cut]`
        : s.response
      : '(none)';
    parts.push(
      [
        `## Session #${s.id}: tier ${s.tier} (${s.model ?? 'unknown model'}), ${s.status}`,
        ...(s.error ? [`Error: ${printable(s.error, 500)}`] : []),
        'Events:',
        ...(events.length ? events : ['- (none)']),
        'Final response:',
        response,
      ].join('\n'),
    );
  }
  return parts.join('\n\n');
}

/** The final response's first lines (markers left out), or null when there is none. */
export function firstLines(response: string | null): string | null {
  if (!response) return null;
  const lines = response
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !MARKER_LINE.test(l) && !/^(`{3,}|~{3,})/.test(l))
    .slice(0, FALLBACK_LINES);
  if (lines.length === 0) return null;
  const text = lines.join('\n');
  return text.length > FALLBACK_CHARS ? `${text.slice(0, FALLBACK_CHARS - 1)}…` : text;
}

export function createChainSummarizer(deps: {
  stores: Stores;
  /** Null: no gateway at all (the final response's first lines, always). */
  gateway: SummaryGateway | null;
  clock: Clock;
  log: Logger;
  /** The process's record of a lost database: a summary waits for it to answer again. */
  outage?: DatabaseOutage;
}) {
  const { stores, gateway, clock, log } = deps;
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  const outage =
    deps.outage ?? createDatabaseOutage({ probe: () => Promise.resolve(true), clock, log });

  // Every read and write here is awaited: summaries are written from serve's event loop.
  const chainSessions = async (ids: readonly number[]) =>
    (await Promise.all(ids.map((id) => stores.sessions.getAwaited(id)))).filter(
      (s): s is SessionRow => s !== null,
    );

  /** The fallback: the last session's final response (else the latest one that has one). */
  const fallback = async (
    sessions: readonly SessionRow[],
    reason: string,
    jobId: number | null,
  ): Promise<void> => {
    const root = sessions[0]!;
    const text =
      [...sessions]
        .reverse()
        .map((s) => firstLines(s.response))
        .find(Boolean) ?? null;
    await stores.sessionRecords.setSummaryAwaited({
      sessionId: root.id,
      text,
      source: text === null ? null : 'final_response',
      status: text === null ? 'failed' : 'done',
      error: text === null ? `${reason}; and the run gave no final response` : reason,
      jobId,
      at: clock.now(),
    });
  };

  const write = async (sessions: readonly SessionRow[]): Promise<void> => {
    const root = sessions[0]!;
    if (!gateway || !gateway.available) {
      await fallback(sessions, gateway?.offReason ?? 'no summary model is configured', null);
      return;
    }
    if ((await gateway.state()).budgetReached) {
      await fallback(sessions, "the model gateway's daily budget is spent", null);
      return;
    }
    const [, events] = await Promise.all([
      stores.sessionRecords.summaryPendingAwaited(root.id, clock.now()),
      Promise.all(sessions.map((s) => stores.events.listAwaited({ sessionId: s.id, limit: 200 }))),
    ]);
    const eventsOf = new Map(sessions.map((s, i) => [s.id, events[i]!]));
    const result = await gateway.run({
      kind: SESSION_SUMMARY_KIND,
      system: SESSION_SUMMARY_SYSTEM,
      prompt: chainSummaryPrompt(sessions, (id) => eventsOf.get(id) ?? []),
      ref: `session #${root.id} summary (${sessions.length} session${sessions.length === 1 ? '' : 's'})`,
      maxTokens: 300,
    });
    const text = result.ok ? printable(result.text.trim(), MAX_SUMMARY_CHARS).trim() : '';
    if (text === '') {
      const error = result.ok ? 'the model returned an empty summary' : result.error;
      log.warn('session summary failed; the final response stands in', {
        session: root.id,
        error,
      });
      await fallback(sessions, `the summary model failed: ${error}`, result.jobId);
      return;
    }
    await stores.sessionRecords.setSummaryAwaited({
      sessionId: root.id,
      text,
      source: 'model',
      status: 'done',
      error: null,
      jobId: result.jobId,
      at: clock.now(),
    });
  };

  return {
    /** Starts the chain's summary in the background; returns at once. */
    summarize(sessionIds: readonly number[]): void {
      const job: Promise<void> = (async () => {
        let waited = false;
        for (;;) {
          let sessions: SessionRow[] = [];
          try {
            sessions = await chainSessions(sessionIds);
            if (sessions.length > 0) await write(sessions);
            if (waited) outage.restored(SUMMARY_LOOP);
            return;
          } catch (err) {
            // The database went away: the summary is written when it answers again.
            if (isUnreachableError(err)) {
              outage.lost(SUMMARY_LOOP, err);
              waited = true;
              if (await untilReachable(outage, stopping.signal)) continue;
              return;
            }
            // A bug: the summary is lost, the run is not.
            log.error('session summary failed', { session: sessionIds[0], error: err as Error });
            try {
              if (sessions.length > 0)
                await fallback(sessions, `internal error: ${(err as Error).message}`, null);
            } catch {
              // the database is gone (shutting down): nothing more to record
            }
            return;
          }
        }
      })().finally(() => running.delete(job));
      running.add(job);
    },
    /** Resolves when every summary started so far is written. */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.all([...running]);
    },
    /** Stops waiting for a database that is away (those summaries are not written); then idle. */
    async close(): Promise<void> {
      stopping.abort();
      await this.idle();
    },
  };
}

export type ChainSummarizer = ReturnType<typeof createChainSummarizer>;
