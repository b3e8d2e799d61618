/**
 * Indexing in a long-running process (serve): the Stop hook's requests and the session logs of
 * ended sessions are queued here and indexed one file at a time in the background, so neither a
 * hook nor the next session waits for them. A file asked for again while it waits is asked for
 * once (the later request's end-of-message text wins: it is the newer turn); one asked for while
 * it is being indexed is read once more afterwards. The per-file lock of `Graph.index` still
 * keeps a detached `graph index` of the same file from running at the same time.
 */
import type { IndexOptions } from './indexer.js';
import type { IndexOutcome } from './index.js';

export interface IndexQueueDeps {
  index(file: string, opts: IndexOptions): Promise<IndexOutcome>;
  /** Embeds what was stored while the embedder was busy or off. */
  embedPending(): Promise<number>;
  onIndexed?(outcome: IndexOutcome): void;
  onError(file: string, err: Error): void;
}

export type Enqueued = 'queued' | 'already_queued';

export function createIndexQueue(deps: IndexQueueDeps) {
  const waiting = new Map<string, IndexOptions>();
  let running: Promise<void> | null = null;
  let closed = false;

  const drain = async (): Promise<void> => {
    for (;;) {
      const next = waiting.entries().next();
      if (next.done || closed) return;
      const [file, opts] = next.value;
      waiting.delete(file);
      try {
        const outcome = await deps.index(file, opts);
        deps.onIndexed?.(outcome);
        await deps.embedPending();
      } catch (err) {
        deps.onError(file, err as Error);
      }
    }
  };

  const start = (): void => {
    if (running || closed || waiting.size === 0) return;
    running = drain().finally(() => {
      running = null;
      start(); // asked for between the last look and now
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
      waiting.clear();
      await this.idle();
    },
  };
}

export type IndexQueue = ReturnType<typeof createIndexQueue>;
