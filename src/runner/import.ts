/**
 * `watchkeeper ingest`: a saved stream-json transcript becomes an imported session, through the
 * same parser and ingest path a live session uses. The raw bytes are kept as the session log.
 */
import { join } from 'node:path';

import type { Clock } from '../clock.js';
import type { SessionStatus, Stores } from '../db/index.js';
import { type ByteSource, StreamParser, type StreamStats } from '../stream/index.js';
import { createSessionIngest, type IngestCounts, transcriptFields } from './ingest.js';
import type { MemoryKeeper } from './memory-keeper.js';
import { createSessionTee } from './raw-log.js';

export interface ImportResult {
  sessionId: number;
  status: SessionStatus;
  error: string | null;
  cliSessionId: string | null;
  counts: IngestCounts;
  stats: StreamStats;
  /** Earlier sessions with the same CLI session id (the same transcript imported before). */
  previousImports: number[];
}

export async function importTranscript(
  source: ByteSource,
  deps: {
    stores: Stores;
    keeper: MemoryKeeper;
    clock: Clock;
    dataDir: string;
    maxLineBytes: number;
  },
  opts: { tier?: number; prompt?: string } = {},
): Promise<ImportResult> {
  const { stores, keeper, clock } = deps;
  const tier = opts.tier ?? 1;
  const sessionId = stores.sessions.start({
    trigger: 'import',
    tier,
    prompt: opts.prompt ?? null,
    startedAt: clock.now(),
  });
  const logRelative = join('sessions', `${sessionId}.ndjson`);
  stores.sessions.setLogPath(sessionId, logRelative);
  const ingest = createSessionIngest({ stores, keeper, clock, sessionId, tier });
  const parser = new StreamParser({
    maxLineBytes: deps.maxLineBytes,
    onMessage: (m) => ingest.onMessage(m),
  });
  const tee = createSessionTee(join(deps.dataDir, logRelative), parser);

  let readError: Error | null = null;
  try {
    for await (const chunk of source) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      await tee.write(bytes);
    }
  } catch (err) {
    readError = err as Error;
  }
  await tee.close();
  ingest.reportStreamIssues(parser.stats, deps.maxLineBytes);

  const t = ingest.transcript;
  const result = t.result;
  let status: SessionStatus = 'completed';
  let error: string | null = null;
  if (readError) {
    status = 'failed';
    error = `reading the transcript failed: ${readError.message}`;
  } else if (!result) {
    status = 'failed';
    error = 'the transcript ends without a result line (the run was cut short)';
  } else if (result.subtype !== 'success' || result.isError) {
    status = 'failed';
    error = result.errors.length > 0 ? result.errors.join('; ') : (result.result ?? result.subtype);
  }
  if (tee.logFailure)
    error = `${error ? `${error}; ` : ''}writing the session log failed: ${tee.logFailure}`;
  stores.sessions.finish(sessionId, {
    status,
    endedAt: clock.now(),
    error,
    ...transcriptFields(t, parser.stats),
  });
  const previousImports =
    t.cliSessionId === null
      ? []
      : stores.sessions
          .byCliSessionId(t.cliSessionId)
          .map((s) => s.id)
          .filter((id) => id !== sessionId);
  return {
    sessionId,
    status,
    error,
    cliSessionId: t.cliSessionId,
    counts: ingest.counts,
    stats: parser.stats,
    previousImports,
  };
}
