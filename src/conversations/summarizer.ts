/**
 * Seed 001's sliding-window summaries, exactly: after a round ends (an assistant message is
 * saved) and once the last saved seq reaches the threshold, one `processing` row claims the
 * window and a background job writes it, incremental from the latest completed summary (only the
 * messages after it are sent, with the instruction to drop what fell out of the window). A second
 * trigger while one is processing is skipped, not queued; a processing row older than the stale
 * limit is marked failed first, so the next round may trigger again. A completed row always has
 * text; a failed one keeps its error.
 */
import type { Clock } from '../clock.js';
import {
  type ConversationStore,
  isUnreachableError,
  type SummaryRow,
  type SummaryStore,
} from '../db/index.js';
import type { Gateway } from '../gateway/index.js';
import type { Logger } from '../log.js';
import { SUMMARY_SYSTEM, summaryPrompt } from './prompts.js';
import { summaryRange } from './window-math.js';

export interface SummarizerOptions {
  windowSize: number;
  summarizeAfterSeq: number;
  staleAfterMs: number;
}

export function createSummarizer(deps: {
  conversations: ConversationStore;
  summaries: SummaryStore;
  gateway: Gateway;
  clock: Clock;
  log?: Logger;
  options: SummarizerOptions;
  /** Keeps the background job so that `idle()` and shutdown can wait for it. */
  track(job: Promise<unknown>): void;
}) {
  const { conversations, summaries, gateway, clock, options } = deps;

  /** The background half: summarise the claimed window and complete or fail the row. */
  const summarise = async (row: SummaryRow): Promise<void> => {
    const base = row.baseSummaryId === null ? null : await summaries.get(row.baseSummaryId);
    const usable = base?.status === 'completed' && base.text ? base : null;
    // Incremental: only what came after the base summary (and nothing before the window).
    const from = usable ? Math.max(usable.endSeq + 1, row.startSeq) : row.startSeq;
    const messages = (await conversations.messages(row.conversationId, from, row.endSeq)).filter(
      (m) => m.role === 'user' || m.role === 'assistant',
    );
    const result = await gateway.run({
      kind: 'summary',
      system: SUMMARY_SYSTEM,
      prompt: summaryPrompt({
        startSeq: row.startSeq,
        endSeq: row.endSeq,
        previous: usable
          ? { text: usable.text!, startSeq: usable.startSeq, endSeq: usable.endSeq }
          : null,
        messages,
      }),
      ref: `conversation ${row.conversationId} summary #${row.id} (${row.startSeq}-${row.endSeq})`,
    });
    const now = clock.now();
    const text = result.ok ? result.text.trim() : '';
    if (result.ok && text !== '') {
      if (await summaries.complete(row.id, text, result.durationMs, result.jobId, now)) {
        deps.log?.info('conversation summarised', {
          conversation: row.conversationId,
          window: `${row.startSeq}-${row.endSeq}`,
          ms: result.durationMs,
        });
      }
      return;
    }
    const error = result.ok ? 'the model returned an empty summary' : result.error;
    await summaries.fail(row.id, error, result.durationMs, result.jobId, now);
    deps.log?.warn('conversation summary failed', {
      conversation: row.conversationId,
      summary: row.id,
      error,
    });
  };

  return {
    /**
     * Seed 001's `should_trigger_summary` and the insert of the processing row, called after a
     * round ends. Returns the claimed row, or null when nothing was started (too early, one is
     * already processing, or no model can run now).
     */
    async trigger(conversationId: string, lastSavedSeq: number): Promise<SummaryRow | null> {
      if (lastSavedSeq < options.summarizeAfterSeq) return null;
      if (!gateway.available || (await gateway.state()).budgetReached) return null;
      const now = clock.now();
      const { startSeq, endSeq } = summaryRange(lastSavedSeq, options.windowSize);
      const staleBefore = now - options.staleAfterMs;
      const row = await summaries.claim(conversationId, startSeq, endSeq, now, staleBefore);
      if (!row) {
        deps.log?.debug('summarisation already in progress', { conversation: conversationId });
        return null;
      }
      deps.track(
        summarise(row).catch((err: unknown) => {
          // A lost database leaves the row processing: once stale, the next round claims the
          // window again.
          if (isUnreachableError(err)) {
            deps.log?.warn('conversation summary interrupted: the database is unreachable', {
              conversation: conversationId,
              summary: row.id,
            });
            return;
          }
          // A bug, not a model failure: the row must not stay processing until it goes stale.
          return summaries
            .fail(row.id, `internal error: ${(err as Error).message}`, null, null, clock.now())
            .catch((failed: unknown) => {
              deps.log?.error('conversation summary failed', {
                conversation: conversationId,
                error: failed as Error,
              });
            });
        }),
      );
      return row;
    },
  };
}

export type Summarizer = ReturnType<typeof createSummarizer>;
