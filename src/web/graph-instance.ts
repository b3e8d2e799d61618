/**
 * The memory graph over the dashboard's database: one per store, built from what the web layer is
 * given (the store's connection and the knowledge layer's embedder), so nothing new is injected;
 * `serve` reaches the same one (and its queue) for the logs of ended sessions. Its model jobs stay
 * offline here: a page view or a hook never spends money on the gateway.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { DatabaseOutage, SessionRow, Stores } from '../db/index.js';
import { AppError } from '../errors.js';
import {
  createGraph,
  createIndexQueue,
  type Graph,
  type IndexQueue,
  type IndexQueueDeps,
  transcriptRoots,
  transcriptUnder,
} from '../graph/index.js';
import type { Knowledge } from '../knowledge/index.js';
import type { Logger } from '../log.js';
import { logFilePath } from './session-log-file.js';

/** What the graph is built from: the web layer's deps, or serve's runtime. */
export interface GraphHost {
  config: Config;
  stores: Stores;
  knowledge: Knowledge;
  clock: Clock;
  log: Logger;
  /** The process's record of a lost database: indexing waits for it to answer again. */
  outage?: DatabaseOutage;
  /**
   * How the queue indexes a file when not in this process (serve on PostgreSQL: a child process
   * each, which embeds what it stored itself).
   */
  indexFile?: IndexQueueDeps['index'];
}

const graphs = new WeakMap<Stores, Graph>();
const queues = new WeakMap<Stores, IndexQueue>();

export function graphOf(host: GraphHost): Graph {
  let graph = graphs.get(host.stores);
  if (!graph) {
    graph = createGraph({
      db: host.stores.db,
      embedding: host.knowledge.embedding,
      clock: host.clock,
      dataDir: host.config.dataDir,
      sessions: host.stores.sessions,
      maxLineBytes: host.config.maxLineBytes,
      instance: host.stores.instance,
    });
    graphs.set(host.stores, graph);
  }
  return graph;
}

/** The folders transcripts are read from for a hook (symlinks followed). */
export function transcriptRootsOf(host: Pick<GraphHost, 'config'>): string[] {
  const { graph, sessionsDir } = host.config;
  return transcriptRoots({ ...graph, sessionsDir });
}

/** Background indexing in this process (the Stop hook's requests, ended sessions' logs). */
export function indexQueueOf(host: GraphHost): IndexQueue {
  let queue = queues.get(host.stores);
  if (!queue) {
    const graph = graphOf(host);
    const { indexFile } = host;
    queue = createIndexQueue({
      // Checked again when its turn comes: a link swapped since it was queued is not followed.
      index: async (file, opts) => {
        if (transcriptUnder(file, transcriptRootsOf(host)) === null)
          throw new AppError('invalid_input', 'not a transcript in a folder of transcripts');
        return indexFile ? indexFile(file, opts) : graph.index(file, opts);
      },
      embedPending: () => (indexFile ? Promise.resolve(0) : graph.embedPending()),
      onIndexed: (r) => {
        if (r.status === 'indexed')
          host.log.debug('graph: indexed', {
            file: r.file,
            lines: r.lines,
            ideas: r.ideas,
            ...(indexFile ? { by: 'a child process' } : {}),
          });
      },
      onError: (file, err) => host.log.warn('graph: indexing failed', { file, error: err }),
      ...(host.outage ? { outage: host.outage } : {}),
    });
    queues.set(host.stores, queue);
  }
  return queue;
}

/** A watchkeeper session's log file (recorded relative to the data folder), or null. */
export function sessionLogFile(
  host: Pick<GraphHost, 'config'>,
  session: Pick<SessionRow, 'logPath'> | null,
) {
  return logFilePath(host.config.dataDir, session?.logPath ?? null);
}

/** Queues an ended session's log for the graph; false when the session has no log. */
export async function queueSessionLog(host: GraphHost, id: number): Promise<boolean> {
  const file = sessionLogFile(host, await host.stores.sessions.getAwaited(id));
  if (file) indexQueueOf(host).enqueue(file);
  return file !== null;
}
