/**
 * Indexing in a long-running process (serve): the Stop hook's requests and the session logs of
 * ended sessions are queued here and indexed one file at a time in the background, so neither a
 * hook nor the next session waits for them. A file asked for again while it waits is asked for
 * once (the later request's end-of-message text wins: it is the newer turn); one asked for while
 * it is being indexed is read once more afterwards. The per-file lock of `Graph.index` still
 * keeps a detached `graph index` of the same file from running at the same time.
 */
import { type DatabaseOutage, isUnreachableError, untilReachable } from '../db/index.js';
import type { IndexOutcome } from './index-outcome.js';
import type { IndexOptions } from './indexer.js';

/** What the queue learns of a file it had indexed (in this process or by a child process). */
export type QueuedIndex = Pick<IndexOutcome, 'file' | 'status' | 'lines' | 'ideas'>;

export interface IndexQueueDeps {
  index(file: string, opts: IndexOptions): Promise<QueuedIndex>;
  /** Embeds what was stored while the embedder was busy or off. */
  embedPending(): Promise<number>;
  onIndexed?(outcome: QueuedIndex): void;
  onError(file: string, err: Error): void;
  /**
   * The process's record of a lost database: a file whose indexing met it is queued again, and
   * the queue waits for the database to answer before it goes on.
   */
  outage?: DatabaseOutage;
}

const LOOP_NAME = 'graph indexing';

export type Enqueued = 'queued' | 'already_queued';

export function createIndexQueue(deps: IndexQueueDeps) {
  let waiting = new Map<string, IndexOptions>();
  let running: Promise<void> | null = null;
  let closed = false;
  let paused = false;
  const closing = new AbortController();

  /** Indexes what waits; false when the database went away (the file is queued again). */
  const drain = async (): Promise<boolean> => {
    for (;;) {
      const next = waiting.entries().next();
      if (next.done || closed) return true;
      const [file, opts] = next.value;
      waiting.delete(file);
      try {
        const outcome = await deps.index(file, opts);
        deps.onIndexed?.(outcome);
        await deps.embedPending();
        if (paused) deps.outage?.restored(LOOP_NAME);
        paused = false;
      } catch (err) {
        if (deps.outage && isUnreachableError(err)) {
          // First again, with a newer request's options when one came meanwhile.
          waiting = new Map([[file, { ...opts, ...waiting.get(file) }], ...waiting]);
          deps.outage.lost(LOOP_NAME, err);
          paused = true;
          return false;
        }
        deps.onError(file, err as Error);
      }
    }
  };

  const start = (): void => {
    if (running || closed || waiting.size === 0) return;
    running = drain()
      .then(async (done) => {
        if (!done && deps.outage) await untilReachable(deps.outage, closing.signal);
      })
      .finally(() => {
        running = null;
        start(); // asked for between the last look and now, or held while the database was away
      });
  };

  return {
    /** Queues `file` (an absolute path); returns at once. */
    enqueue(file: string, opts: Pick<IndexOptions, 'untilText'> = {}): Enqueued {
      if (closed) return 'already_queued';
      const known = waiting.has(file);
      waiting.set(file, { ...waiting.get(file), ...opts });
      start();
      return known ? 'already_queued' : 'queued';
    },

    /** Files waiting (not counting the one being indexed). */
    get waiting(): number {
      return waiting.size;
    },

    /** Resolves when nothing is waiting or running (tests, and a quiet shutdown). */
    async idle(): Promise<void> {
      while (running) await running;
    },

    /** Takes nothing more; waits for the file being indexed (the database closes after). */
    async close(): Promise<void> {
      closed = true;
      closing.abort();
      waiting.clear();
      await this.idle();
    },
  };
}

export type IndexQueue = ReturnType<typeof createIndexQueue>;
