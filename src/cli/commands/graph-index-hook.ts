/**
 * `watchkeeper graph index --from-hook`: the one detached indexer the Stop hook starts when no
 * serve takes its transcripts. It reads the requests the hooks left (hook-requests.ts) until none
 * is left, holding the indexer lock so that no second one runs meanwhile, and reads only
 * transcripts in the folders of transcripts (Claude Code's projects, the session logs,
 * WATCHKEEPER_GRAPH_ROOTS, symlinks followed). Nothing is printed (no one reads it): what it did
 * and what failed go to `graph-hook.log` in the data folder. A data folder that cannot be made
 * is an error at once.
 */
import { appendFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { isAppError } from '../../errors.js';
import { transcriptRoots, transcriptUnder } from '../../graph/index.js';
import {
  claimIndexerLock,
  hasRequests,
  leaveRequest,
  releaseIndexerLock,
  takeRequests,
} from '../hook-requests.js';
import type { CliIo } from '../io.js';
import { dataDirOf } from '../serve-endpoint.js';
import { openGraph } from './graph/open.js';

/** `paths` (with `untilText`): requests given on the command line, read with the others. */
export async function indexFromHook(
  io: CliIo,
  o: { paths: string[]; untilText: string | null },
): Promise<number> {
  const dataDir = dataDirOf(io.env);
  for (const path of o.paths)
    leaveRequest(dataDir, { transcriptPath: resolve(path), untilText: o.untilText });
  // Held by a live indexer: it reads these requests too.
  if (!claimIndexerLock(dataDir, { handedBy: process.ppid })) return 0;
  let opened: ReturnType<typeof openGraph> | null = null;
  try {
    opened = openGraph(io);
    const { app, graph } = opened;
    const log = (line: string) =>
      appendFileSync(
        join(app.config.dataDir, 'graph-hook.log'),
        `${new Date(io.clock.now()).toISOString()} ${line}\n`,
      );
    const roots = transcriptRoots({ ...app.config.graph, sessionsDir: app.config.sessionsDir });
    for (;;) {
      const requests = takeRequests(dataDir);
      if (requests.length === 0) {
        // Let go first, then look once more: a hook that found the lock held left its request
        // before it looked, so it is seen here or that hook starts the next indexer.
        releaseIndexerLock(dataDir);
        if (!hasRequests(dataDir) || !claimIndexerLock(dataDir)) return 0;
        continue;
      }
      for (const r of requests) {
        const file = transcriptUnder(r.transcriptPath, roots);
        if (file === null) {
          log(
            `refused: ${r.transcriptPath}: not a transcript in a folder of transcripts (Claude Code's projects, the session logs, WATCHKEEPER_GRAPH_ROOTS)`,
          );
          continue;
        }
        try {
          const out = await graph.index(file, r.untilText ? { untilText: r.untilText } : {});
          log(`${file}: ${out.status} ${out.lines} lines, ${out.ideas} ideas`);
        } catch (err) {
          if (!isAppError(err)) throw err;
          log(`failed: ${err.message}`);
        }
      }
      await graph.embedPending();
    }
  } catch (err) {
    try {
      appendFileSync(join(dataDir, 'graph-hook.log'), `failed: ${(err as Error).message}\n`);
    } catch {
      // No data folder to log in: the error goes to stderr (the caller reports it).
    }
    throw err;
  } finally {
    releaseIndexerLock(dataDir);
    await opened?.app.close();
  }
}
