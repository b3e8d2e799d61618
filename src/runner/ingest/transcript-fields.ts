/**
 * The session-row fields a transcript fills: result line, final text, CLI identity, stream stats.
 * The final text is model text, stored without control characters like the markers.
 */
import type { StreamStats, TranscriptSummary } from '../../stream/index.js';
import { stripControlCharacters } from '../../text-rules.js';

export function transcriptFields(t: TranscriptSummary, stats: StreamStats) {
  const r = t.result;
  return {
    // '' when the line's subtype was missing or not text: stored as unknown.
    resultSubtype: r?.subtype || null,
    isError: r ? r.isError : null,
    costUsd: r?.totalCostUsd ?? null,
    numTurns: r?.numTurns ?? null,
    durationMs: r?.durationMs ?? null,
    durationApiMs: r?.durationApiMs ?? null,
    usage: r?.usage ?? null,
    response: t.finalText === null ? null : stripControlCharacters(t.finalText),
    cliSessionId: t.cliSessionId,
    model: t.model,
    streamStats: stats,
  };
}
