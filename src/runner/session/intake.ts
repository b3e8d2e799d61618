/**
 * The CLI's stdout on its way in: raw bytes to the session log, typed messages to the ingest
 * path and the live feed. Markers written while the database is unreachable are held by the
 * outbox and written when it returns. A failed write never stops the reading: the first
 * failure is kept for the session's error.
 */
import { probeDatabase } from '../../db/index.js';
import { StreamParser } from '../../stream/index.js';
import { createSessionIngest } from '../ingest.js';
import { createMarkerOutbox } from '../marker-outbox.js';
import { createSessionTee } from '../raw-log.js';
import type { SessionRunnerDeps, Tier } from './request.js';

export function createIntake(p: {
  deps: SessionRunnerDeps;
  sessionId: number;
  tier: Tier;
  logPath: string;
  /** Renews the session's lease (after an outage it may be close to expiring). */
  beatNow: () => void;
}) {
  const { deps, sessionId } = p;
  const { config, stores, knowledge, clock, feed, log } = deps;
  let failure: string | null = null;
  const probe = () => probeDatabase(stores.db);
  const outbox = createMarkerOutbox({
    sessionId,
    log,
    probe,
    onFailure: (err) => {
      failure ??= (err as Error).message;
      log.error('ingest failed', { session: sessionId, error: err as Error });
    },
    onRestored: () => p.beatNow(),
  });
  const ingest = createSessionIngest({
    stores,
    knowledge,
    clock,
    sessionId,
    tier: p.tier,
    outbox,
    ...(deps.onAlert ? { onAlert: deps.onAlert } : {}),
  });
  const parser = new StreamParser({
    maxLineBytes: config.maxLineBytes,
    onMessage: (message, bytes) => {
      try {
        ingest.onMessage(message);
      } catch (err) {
        // Keep reading: the raw log has the line, and the failure is reported on the session.
        failure ??= (err as Error).message;
        log.error('ingest failed', { session: sessionId, error: err as Error });
      }
      feed.publish(sessionId, { kind: 'message', message }, bytes);
    },
  });
  const tee = createSessionTee(p.logPath, parser, () => clock.now());
  return {
    probe,
    outbox,
    ingest,
    parser,
    tee,
    /** The first write that failed, if any. */
    get failure() {
      return failure;
    },
    /** Keeps the first failure: the memory writes' are known only once they have settled. */
    noteFailure(message: string | null) {
      failure ??= message;
    },
  };
}
