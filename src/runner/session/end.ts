/**
 * The end of a session's storage: its row filled from the transcript and the services' health
 * recorded, now, or in the background once the database returns (markers still held, or the
 * row's own write met the outage; the lease is kept alive until then). A session that fails
 * before its CLI runs is ended here too.
 */
import { join } from 'node:path';

import type { ServiceCheck, SessionStatus } from '../../db/index.js';
import type { StreamStats, TranscriptSummary } from '../../stream/index.js';
import { emitAlert } from '../alerts.js';
import { transcriptFields } from '../ingest.js';
import type { MarkerOutbox } from '../marker-outbox.js';
import { recordHealth } from '../service-health.js';
import { recordNowOrWhenBack } from '../unstored-session.js';
import type { SessionOutcome, SessionRequest, SessionRunnerDeps } from './request.js';

/** Tells `onSessionEnd`; what it throws is logged, never the session's. */
export function notifySessionEnd(deps: SessionRunnerDeps, sessionId: number): void {
  try {
    deps.onSessionEnd?.(sessionId);
  } catch (err) {
    deps.log.warn('the session-end callback failed', { session: sessionId, error: err as Error });
  }
}

/** True when the row was handed to the background (it then stops the heartbeat itself). */
export async function recordSessionRow(p: {
  deps: SessionRunnerDeps;
  sessionId: number;
  finished: {
    status: SessionStatus;
    endedAt: number;
    exitCode: number | null;
    error: string | null;
  };
  transcript: TranscriptSummary;
  stats: StreamStats;
  healthMarkers: readonly ServiceCheck[];
  outbox: MarkerOutbox;
  probe: () => Promise<boolean>;
  stopHeartbeat: () => void;
}): Promise<boolean> {
  const { deps, sessionId, finished, transcript: t } = p;
  const { stores, clock } = deps;
  const recordRow = async () => {
    await stores.sessions.finishAwaited(sessionId, {
      ...finished,
      ...transcriptFields(t, p.stats),
    });
    await recordHealth(deps, sessionId, p.healthMarkers, t.finalText, clock.now());
  };
  return recordNowOrWhenBack({
    sessionId,
    outbox: p.outbox,
    probe: p.probe,
    notePath: join(deps.config.sessionsDir, `${sessionId}.unstored.ndjson`),
    status: finished.status,
    error: finished.error ?? '',
    endedAt: finished.endedAt,
    record: recordRow,
    finish: async () => {
      await recordRow();
      notifySessionEnd(deps, sessionId);
    },
    done: p.stopHeartbeat,
    log: deps.log,
  });
}

/** A session that ends before or outside its CLI run: failed, with the reason. */
export async function failSession(
  deps: SessionRunnerDeps,
  req: SessionRequest,
  sessionId: number,
  error: string,
  logMessage: string,
): Promise<SessionOutcome> {
  await deps.stores.sessions.finishAwaited(sessionId, {
    status: 'failed',
    endedAt: deps.clock.now(),
    error,
  });
  deps.feed.close(sessionId, 'failed');
  deps.log.warn(logMessage, { session: sessionId, error });
  emitAlert(
    deps.onAlert,
    { kind: 'session_ended', status: 'failed', error, sessionId, tier: req.tier },
    deps.log,
  );
  return { sessionId, status: 'failed', error, finalText: null, escalations: [] };
}
