/**
 * @module graph: the memory graph of seed 004. Transcripts (Claude Code's and watchkeeper's own
 * session logs) are indexed incrementally into topic spans, ideas, entities and relations, and
 * recalled by /remember with several strategies fused. Jobs that want a model go through the
 * model port (offline rules by default; the model gateway when configured).
 */
import { join, resolve } from 'node:path';

import type { Clock } from '../clock.js';
import { createGraphStores } from '../db/graph/graph.js';
import type { Db, SessionRow } from '../db/index.js';
import type { Embedding } from '../knowledge/index.js';
import { withFileLock } from './file-lock.js';
import type { IndexOutcome } from './index-outcome.js';
import { fileIdentity } from './file-reader.js';
import { createIndexer, type IndexOptions, sameFile } from './indexer.js';
import { type GraphModel, offlineModel } from './model-port.js';
import { createRemember, type ListWeights } from './remember.js';
import { sourceOf } from './sources/kind.js';
import { type SessionLogRecords, watchkeeperLogOwner } from './sources/watchkeeper-log.js';
import { createGraphVectors } from './vectors.js';
import { createGraphViews } from './views.js';

export { type AnswerGroup, type AnswerIdea, day, sessionLabel, viaText } from './answer.js';
export { currentTranscripts, transcriptFiles } from './discover.js';
export { MIN_ENTITY_EVIDENCE, shownEntities, topEntities } from './entity-evidence.js';
export { countNewLines, fileIdentity } from './file-reader.js';
export { GRAPH_JOB_KINDS, gatewayModel } from './gateway-model.js';
export { type IndexOutcome } from './index-outcome.js';
export { type IndexOptions, type IndexReport } from './indexer.js';
export {
  createIndexQueue,
  type Enqueued,
  type IndexQueue,
  type IndexQueueDeps,
  type QueuedIndex,
} from './index-queue.js';
export {
  countsJson,
  entityJson,
  graphSessionJson,
  ideaJson,
  ideaViewJson,
  indexReportJson,
  rememberJson,
  sessionViewJson,
  spanJson,
} from './json.js';
export {
  EXTRACTION_SCHEMA,
  type GraphModel,
  offlineModel,
  parseExtraction,
  SHIFT_SCHEMA,
  type ShiftVerdict,
} from './model-port.js';
export { analyseQuery, type QueryAnalysis } from './query.js';
export {
  DEFAULT_BUDGET,
  type RankedIdea,
  type RememberAnswer,
  type RememberOptions,
  type Why,
} from './remember.js';
export { type IdeaRepeat, onceEach, type SeenIdea } from './repeats.js';
export { sourceOf } from './sources/kind.js';
export { type TranscriptFolders, transcriptRoots, transcriptUnder } from './transcript-roots.js';
export { type EntityView, type IdeaView, type SessionView, type TopicNode } from './views.js';

export interface GraphDeps {
  db: Db;
  embedding: Embedding;
  clock: Clock;
  /** watchkeeper's data folder (the per-file locks live in it). */
  dataDir: string;
  model?: GraphModel;
  /** watchkeeper's sessions: which session a log is (by its recorded path), its prompt and start. */
  sessions?: ({ get(id: number): SessionRow | null } & SessionLogRecords) | null;
  maxLineBytes?: number;
  /** Fusion weights of remember (benchmarks). */
  weights?: Partial<ListWeights>;
  /** The instance indexing (its transcript files are on its disk); `local` when alone. */
  instance?: string;
}

export function createGraph(deps: GraphDeps) {
  const stores = createGraphStores(deps.db, deps.instance);
  const vectors = createGraphVectors(stores.search, deps.embedding);
  const model = deps.model ?? offlineModel();
  const thresholds = () => deps.embedding.thresholds;
  const logOwner = deps.sessions ? watchkeeperLogOwner(deps.dataDir, deps.sessions) : null;
  const indexFile = createIndexer({
    stores,
    vectors,
    model,
    thresholds,
    sessions: deps.sessions ?? null,
    logOwner,
    clock: deps.clock,
    maxLineBytes: deps.maxLineBytes ?? 16 * 1024 * 1024,
  });
  const lockDir = join(deps.dataDir, 'graph-locks');
  const views = createGraphViews(stores);

  return {
    stores,
    model,
    views,
    /** Loads the vectors other processes wrote, so the first remember is fast. */
    async prepare(): Promise<void> {
      const dimension = deps.embedding.embedder?.dimension;
      if (dimension && vectors.model) await vectors.refresh(dimension);
    },

    /**
     * Indexes what was appended to a file. Never two jobs for one file at once: a job that finds
     * another running leaves it a note to read once more, and returns `queued`.
     */
    async index(path: string, opts: IndexOptions = {}): Promise<IndexOutcome> {
      if (opts.dryRun) return indexFile(path, opts);
      const file = resolve(path);
      const out = await withFileLock(lockDir, file, () => indexFile(file, opts));
      if (out.ran) return out.value;
      const source = sourceOf(file, logOwner);
      return {
        file,
        session: source?.session ?? '',
        kind: source?.kind ?? '',
        status: 'queued',
        holder: out.holder,
        reset: false,
        lines: 0,
        turns: 0,
        skipped: 0,
        ideas: 0,
        spans: 0,
        relations: 0,
        oversized: 0,
        partialLine: false,
      };
    },

    /**
     * Whether everything a file holds was read (awaited, a stat and a small read: a page asks
     * before it has the file indexed).
     */
    async indexed(path: string): Promise<boolean> {
      const file = resolve(path);
      const state = await stores.sources.state(file);
      if (!state) return false;
      const now = await fileIdentity(file, state.byteOffset);
      return sameFile(state, now) && now.size === state.byteOffset;
    },

    remember: createRemember({
      stores,
      vectors,
      model,
      thresholds,
      clock: deps.clock,
      ...(deps.weights ? { weights: deps.weights } : {}),
    }),

    /** Embeds ideas and spans stored while the embedder was off or failing; returns how many. */
    async embedPending(batch = 256): Promise<number> {
      const m = vectors.model;
      if (!m) return 0;
      let done = 0;
      for (;;) {
        const ideas = stores.search.pendingIdeas(m, batch);
        if (ideas.length === 0) break;
        const out = await vectors.documents(ideas.map((i) => i.content));
        if (!out) return done;
        vectors.putIdeas(
          ideas.map((i, k) => ({ id: i.id, vector: out[k]! })),
          deps.clock.now(),
        );
        done += ideas.length;
      }
      for (;;) {
        const spans = stores.search.pendingSpans(m, batch);
        if (spans.length === 0) break;
        const out = await vectors.documents(spans.map((s) => `${s.name}. ${s.summary ?? ''}`));
        if (!out) return done;
        vectors.putSpans(
          spans.map((s, k) => ({ id: s.id, vector: out[k]! })),
          deps.clock.now(),
        );
        done += spans.length;
      }
      return done;
    },

    stats: () => stores.rows.counts(),
  };
}

export type Graph = ReturnType<typeof createGraph>;
