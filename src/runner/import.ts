/**
 * `watchkeeper ingest`: a saved stream-json transcript becomes an imported session, through the
 * same parser and ingest path a live session uses. The raw bytes are kept as the session log.
 *
 * Input that is not a transcript (empty, binary, another document) and a transcript whose CLI
 * session is already recorded are refused before anything is stored: no session row, no copy in
 * sessions/. Importing the same run twice would reinforce its memories twice; `force` allows it.
 */
import { join } from 'node:path';

import type { Clock } from '../clock.js';
import type { SessionStatus, Stores } from '../db/index.js';
import { AppError } from '../errors.js';
import {
  type ByteSource,
  resultError,
  resultSucceeded,
  StreamParser,
  type StreamStats,
} from '../stream/index.js';
import { TranscriptHeadJudge } from '../stream/transcript-head.js';
import { createSessionIngest, type IngestCounts, transcriptFields } from './ingest.js';
import { recordHealth } from './service-health.js';
import type { Knowledge } from '../knowledge/index.js';
import { createSessionTee } from './raw-log.js';

export interface ImportResult {
  sessionId: number;
  status: SessionStatus;
  error: string | null;
  cliSessionId: string | null;
  counts: IngestCounts;
  stats: StreamStats;
  /** Earlier sessions with the same CLI session id (only with `force`). */
  previousImports: number[];
}

export async function importTranscript(
  source: ByteSource,
  deps: {
    stores: Stores;
    knowledge: Knowledge;
    clock: Clock;
    dataDir: string;
    maxLineBytes: number;
  },
  opts: { tier?: number; prompt?: string; force?: boolean } = {},
): Promise<ImportResult> {
  const { stores, knowledge, clock } = deps;
  const tier = opts.tier ?? 1;
  const chunks = bytesOf(source)[Symbol.asyncIterator]();
  const head = await readHead(chunks);
  if (head.cliSessionId !== null && !opts.force) {
    const earlier = stores.sessions.byCliSessionId(head.cliSessionId);
    if (earlier.length > 0) {
      await chunks.return?.(undefined);
      const which = earlier.map((s) => `${s.id} (${s.trigger})`).join(', ');
      throw new AppError(
        'invalid_input',
        `this transcript (CLI session ${head.cliSessionId}) is already recorded as session ` +
          `${which}; importing it again would reinforce its memories twice (--force does it anyway)`,
        { data: { sessions: earlier.map((s) => s.id) } },
      );
    }
  }

  const sessionId = stores.sessions.start({
    trigger: 'import',
    tier,
    prompt: opts.prompt ?? null,
    startedAt: clock.now(),
  });
  const logRelative = join('sessions', `${sessionId}.ndjson`);
  await stores.sessions.setLogPath(sessionId, logRelative);
  const ingest = createSessionIngest({ stores, knowledge, clock, sessionId, tier });
  let ingestFailure: string | null = null;
  const parser = new StreamParser({
    maxLineBytes: deps.maxLineBytes,
    onMessage: (m) => {
      // As in a live run: one message that cannot be stored costs that message, not the rest.
      try {
        ingest.onMessage(m);
      } catch (err) {
        ingestFailure ??= (err as Error).message;
      }
    },
  });
  const tee = createSessionTee(join(deps.dataDir, logRelative), parser);

  let readError: Error | null = null;
  try {
    for (const chunk of head.chunks) await tee.write(chunk);
    for (;;) {
      const next = await chunks.next();
      if (next.done) break;
      await tee.write(next.value);
    }
  } catch (err) {
    readError = err as Error;
  }
  await tee.close();
  await ingest.settled();
  ingestFailure ??= ingest.failure;
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
  } else if (!resultSucceeded(result)) {
    status = 'failed';
    error = resultError(result);
  }
  if (ingestFailure) error = `${error ? `${error}; ` : ''}storing markers failed: ${ingestFailure}`;
  if (tee.logFailure)
    error = `${error ? `${error}; ` : ''}writing the session log failed: ${tee.logFailure}`;
  stores.sessions.finish(sessionId, {
    status,
    endedAt: clock.now(),
    error,
    ...transcriptFields(t, parser.stats),
  });
  await recordHealth(deps, sessionId, ingest.healthMarkers, t.finalText, clock.now());
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

async function* bytesOf(source: ByteSource): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
  }
}

/**
 * Reads until the input is judged (see stream/transcript-head.ts); refuses what is not a
 * transcript with nothing stored. The chunks read are handed back to be imported first.
 */
async function readHead(
  chunks: AsyncIterator<Uint8Array>,
): Promise<{ chunks: Uint8Array[]; cliSessionId: string | null }> {
  const read: Uint8Array[] = [];
  const judge = new TranscriptHeadJudge();
  try {
    for (;;) {
      const next = await chunks.next();
      if (!next.done) read.push(next.value);
      const verdict = next.done ? judge.end() : judge.push(next.value);
      if (verdict === null) continue;
      if (verdict.kind === 'transcript')
        return { chunks: read, cliSessionId: verdict.cliSessionId };
      if (!next.done) await chunks.return?.(undefined);
      throw new AppError('invalid_input', `the input ${verdict.reason}; nothing was imported`);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(
      'input_unreadable',
      `reading the transcript failed: ${(err as Error).message}; nothing was imported`,
      { cause: err },
    );
  }
}
