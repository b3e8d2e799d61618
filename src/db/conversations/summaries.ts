/**
 * Seed 001's summary table: sliding-window summaries of a conversation with their version chain
 * (base_summary_id) and status. The database allows one `processing` row per conversation (a
 * partial unique index), so claiming the next summarisation is a single guarded insert, whichever
 * instance of a fleet tries. A processing row carries the instance writing it: one that starts
 * up fails only its own leftovers.
 */
import { allAwaited, getAwaited, runAwaited, writeAwaited } from '../engine.js';
import type { Db } from '../open.js';

export const SUMMARY_STATUSES = ['processing', 'completed', 'failed'] as const;
export type SummaryStatus = (typeof SUMMARY_STATUSES)[number];

export interface SummaryRow {
  id: number;
  conversationId: string;
  text: string | null;
  startSeq: number;
  endSeq: number;
  baseSummaryId: number | null;
  status: SummaryStatus;
  error: string | null;
  jobId: number | null;
  createdAt: number;
  finishedAt: number | null;
  generationTimeMs: number | null;
}

/** A row of the history query: the summary with its base's end (seed 001's version chain). */
export interface SummaryHistoryRow extends SummaryRow {
  baseEndSeq: number | null;
}

export interface GenerationStats {
  avgMs: number | null;
  maxMs: number | null;
  totalSummaries: number;
}

const COLUMNS = `id, conversation_id AS conversationId, summary_text AS text, start_seq AS startSeq,
  end_seq AS endSeq, base_summary_id AS baseSummaryId, status, error, job_id AS jobId,
  created_at AS createdAt, finished_at AS finishedAt, generation_time_ms AS generationTimeMs`;
const COLUMNS_M = `m.id, m.conversation_id AS conversationId, m.summary_text AS text,
  m.start_seq AS startSeq, m.end_seq AS endSeq, m.base_summary_id AS baseSummaryId, m.status,
  m.error, m.job_id AS jobId, m.created_at AS createdAt, m.finished_at AS finishedAt,
  m.generation_time_ms AS generationTimeMs`;

/** Why a row still processing past the limit was marked failed. */
const staleError = (before: number, at: number) =>
  `still processing after the ${Math.round((at - before) / 1000)}s limit: marked failed so the next round can summarise again`;

export function createSummaryStore(db: Db, instance = 'local') {
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM conversation_summaries WHERE id = ?`);
  const latestCompleted = db.prepare(`SELECT ${COLUMNS} FROM conversation_summaries
    WHERE conversation_id = ? AND status = 'completed' ORDER BY end_seq DESC, id DESC LIMIT 1`);
  const processingOf = db.prepare(`SELECT ${COLUMNS} FROM conversation_summaries
    WHERE conversation_id = ? AND status = 'processing'`);
  // One statement, based on the latest completed summary: no other writer (another instance)
  // can come between the check and the insert, and the unique index settles a tie quietly.
  const insert = db.prepare(`INSERT OR IGNORE INTO conversation_summaries (conversation_id,
    start_seq, end_seq, base_summary_id, status, created_at, instance)
    SELECT @conversationId, CAST(@startSeq AS INTEGER), CAST(@endSeq AS INTEGER),
      (SELECT id FROM conversation_summaries WHERE conversation_id = @conversationId
        AND status = 'completed' ORDER BY end_seq DESC, id DESC LIMIT 1),
      'processing', CAST(@at AS BIGINT), @instance
    WHERE NOT EXISTS (SELECT 1 FROM conversation_summaries
      WHERE conversation_id = @conversationId AND status = 'processing')`);
  const complete = db.prepare(`UPDATE conversation_summaries SET status = 'completed',
    summary_text = ?, generation_time_ms = ?, job_id = ?, finished_at = ?
    WHERE id = ? AND status = 'processing'`);
  const fail = db.prepare(`UPDATE conversation_summaries SET status = 'failed', error = ?,
    generation_time_ms = ?, job_id = coalesce(?, job_id), finished_at = ?
    WHERE id = ? AND status = 'processing'`);
  const failStale = db.prepare(`UPDATE conversation_summaries SET status = 'failed',
    error = ?, finished_at = ? WHERE status = 'processing' AND created_at < ?
    AND (CAST(? AS TEXT) IS NULL OR conversation_id = ?)`);
  const abandon = db.prepare(`UPDATE conversation_summaries SET status = 'failed',
    error = 'watchkeeper stopped while it was processing', finished_at = ?
    WHERE status = 'processing' AND instance = ?`);
  const history = db.prepare(`SELECT ${COLUMNS_M}, b.end_seq AS baseEndSeq
    FROM conversation_summaries m LEFT JOIN conversation_summaries b ON m.base_summary_id = b.id
    WHERE m.conversation_id = ? ORDER BY m.end_seq DESC, m.id DESC LIMIT ?`);
  const stuck = db.prepare(`SELECT ${COLUMNS} FROM conversation_summaries
    WHERE status = 'processing' AND created_at < ? AND (CAST(? AS TEXT) IS NULL OR conversation_id = ?)
    ORDER BY created_at`);
  const progression = db.prepare(`SELECT ${COLUMNS} FROM conversation_summaries
    WHERE status = 'completed' AND (CAST(? AS TEXT) IS NULL OR conversation_id = ?)
    ORDER BY created_at DESC, id DESC LIMIT ?`);
  const generation = db.prepare(`SELECT AVG(generation_time_ms) AS avgMs,
    MAX(generation_time_ms) AS maxMs, COUNT(*) AS totalSummaries FROM conversation_summaries
    WHERE status = 'completed' AND generation_time_ms IS NOT NULL
    AND (CAST(? AS TEXT) IS NULL OR conversation_id = ?)`);
  const countByStatus = db.prepare(`SELECT status, COUNT(*) AS n FROM conversation_summaries
    WHERE conversation_id = ? GROUP BY status`);

  return {
    async get(id: number): Promise<SummaryRow | null> {
      return ((await getAwaited(getOne, id)) as SummaryRow | undefined) ?? null;
    },

    /** The summary a context read uses: the completed one reaching furthest. */
    async latestCompleted(conversationId: string): Promise<SummaryRow | null> {
      return (
        ((await getAwaited(latestCompleted, conversationId)) as SummaryRow | undefined) ?? null
      );
    },

    async processing(conversationId: string): Promise<SummaryRow | null> {
      return ((await getAwaited(processingOf, conversationId)) as SummaryRow | undefined) ?? null;
    },

    /**
     * Inserts the `processing` row for the window, based on the latest completed summary; null
     * (and nothing inserted) when the conversation already has one processing. With
     * `staleBefore`, a processing row created before it is marked failed first, in the same
     * transaction: it then no longer holds the conversation.
     */
    async claim(
      conversationId: string,
      startSeq: number,
      endSeq: number,
      at: number,
      staleBefore: number | null = null,
    ): Promise<SummaryRow | null> {
      const stale =
        staleBefore === null
          ? []
          : [
              {
                stmt: failStale,
                params: [
                  staleError(staleBefore, at),
                  at,
                  staleBefore,
                  conversationId,
                  conversationId,
                ],
              },
            ];
      const results = await writeAwaited(db, [
        ...stale,
        { stmt: insert, params: [{ conversationId, startSeq, endSeq, at, instance }] },
      ]);
      const inserted = results[results.length - 1]!;
      if (inserted.changes !== 1) return null;
      return (await getAwaited(getOne, Number(inserted.lastInsertRowid))) as SummaryRow;
    },

    /** Completes a processing row; false when it is no longer processing (marked stale). */
    async complete(
      id: number,
      text: string,
      generationTimeMs: number,
      jobId: number | null,
      at: number,
    ): Promise<boolean> {
      return (await runAwaited(complete, text, generationTimeMs, jobId, at, id)).changes === 1;
    },

    async fail(
      id: number,
      error: string,
      generationTimeMs: number | null,
      jobId: number | null,
      at: number,
    ): Promise<boolean> {
      return (await runAwaited(fail, error, generationTimeMs, jobId, at, id)).changes === 1;
    },

    /** Processing rows created before `before` become failed (the whole store, or one conversation). */
    async failStale(
      before: number,
      at: number,
      conversationId: string | null = null,
    ): Promise<number> {
      const error = staleError(before, at);
      return (await runAwaited(failStale, error, at, before, conversationId, conversationId))
        .changes;
    },

    /** Processing rows a stopped or killed process of this instance left: failed, at start-up. */
    async abandonProcessing(at: number): Promise<number> {
      return (await runAwaited(abandon, at, instance)).changes;
    },

    /** Seed 001's history query: every summary of a conversation with its base's end. */
    async history(conversationId: string, limit = 500): Promise<SummaryHistoryRow[]> {
      return (await allAwaited(history, conversationId, limit)) as SummaryHistoryRow[];
    },

    /** Processing rows older than `before` (seed 001's stuck query). */
    async stuck(before: number, conversationId: string | null = null): Promise<SummaryRow[]> {
      return (await allAwaited(stuck, before, conversationId, conversationId)) as SummaryRow[];
    },

    /** The newest completed windows (seed 001's progression query). */
    async progression(limit = 20, conversationId: string | null = null): Promise<SummaryRow[]> {
      return (await allAwaited(progression, conversationId, conversationId, limit)) as SummaryRow[];
    },

    /** Average and longest generation time of completed summaries (seed 001's last query). */
    async generationStats(conversationId: string | null = null): Promise<GenerationStats> {
      return (await getAwaited(generation, conversationId, conversationId)) as GenerationStats;
    },

    /** Completed-summary counts by conversation, for lists. */
    async countByStatus(conversationId: string): Promise<Record<SummaryStatus, number>> {
      const rows = (await allAwaited(countByStatus, conversationId)) as {
        status: SummaryStatus;
        n: number;
      }[];
      const out = { processing: 0, completed: 0, failed: 0 };
      for (const r of rows) out[r.status] = r.n;
      return out;
    },
  };
}

export type SummaryStore = ReturnType<typeof createSummaryStore>;
