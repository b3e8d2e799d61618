/**
 * Indexing one transcript file, incrementally (seed 004 section 4): only the lines appended since
 * the last run are read (an unchanged file costs a stat and a small read), a line still being
 * written is left for the next run, and a file rotated or rewritten in place is forgotten and
 * read again. Each batch of lines is planned (plan.ts), then written with the file's new state in
 * one transaction (apply.ts), so a crash or a kill loses at most the batch being written, which
 * the next run reads again. In a fleet, a path another instance indexed as another file (the same
 * path on another machine) is refused: what that instance read is never dropped from here.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

import type { Clock } from '../clock.js';
import type { FileIdentity, GraphStores, IndexState } from '../db/graph/graph.js';
import type { SessionRow } from '../db/index.js';
import { AppError } from '../errors.js';
import type { SimilarityThresholds } from '../memory/index.js';
import { applyPlan } from './apply.js';
import { readCarry } from './carry.js';
import { extractIdeas } from './extract.js';
import { fileIdentity, readLines, waitForText } from './file-reader.js';
import type { GraphModel } from './model-port.js';
import { planBatch } from './plan.js';
import { type LogOwner, sourceOf } from './sources/kind.js';
import { LEXICAL_POLICY, VECTOR_POLICY } from './topics.js';
import { isLowValue, type Turn } from './turns.js';
import type { GraphVectors } from './vectors.js';

export interface IndexerDeps {
  stores: GraphStores;
  vectors: GraphVectors;
  model: GraphModel;
  thresholds: () => SimilarityThresholds;
  /** watchkeeper's sessions (a log's prompt and start time); null outside watchkeeper's data. */
  sessions: { get(id: number): SessionRow | null } | null;
  /** Which watchkeeper session a log is, by watchkeeper's records (null: none is). */
  logOwner: LogOwner | null;
  clock: Clock;
  maxLineBytes: number;
}

export interface IndexOptions {
  /** Read and extract, store nothing. */
  dryRun?: boolean;
  /** Lines read so far in this file (for a progress bar). */
  onLines?: (n: number) => void;
  /**
   * The end of the model's last message (the Stop hook's `last_assistant_message`): the CLI
   * writes the transcript asynchronously, so wait up to `waitMs` (UNTIL_TEXT_WAIT_MS) until it is
   * there.
   */
  untilText?: string;
  waitMs?: number;
}

/**
 * How long indexing waits for the turn's last message to reach the transcript. Nobody waits on
 * it (the hook has returned), and on a loaded host the CLI writes the message seconds after the
 * hook fired: a turn read before it is left out until the session's next turn.
 */
const UNTIL_TEXT_WAIT_MS = 30_000;

export interface IndexReport {
  file: string;
  session: string;
  kind: string;
  status: 'indexed' | 'unchanged' | 'dry-run';
  /** The file no longer matched what had been read (rotated, rewritten): it was read again. */
  reset: boolean;
  lines: number;
  turns: number;
  skipped: number;
  ideas: number;
  spans: number;
  relations: number;
  oversized: number;
  /** A line still being written was left for the next run. */
  partialLine: boolean;
}

/** Lines per batch (one transaction each). */
const BATCH_LINES = 400;

/** Whether a file is still the one that was read (not rotated nor rewritten in place). */
export function sameFile(state: IndexState, now: FileIdentity): boolean {
  const was = state.identity;
  if (!was) return state.byteOffset === 0;
  return (
    was.dev === now.dev &&
    was.ino === now.ino &&
    now.size >= state.byteOffset &&
    was.headHash === now.headHash
  );
}

async function subagentTitle(file: string): Promise<string | null> {
  try {
    const meta = JSON.parse(await readFile(file.replace(/\.jsonl$/, '.meta.json'), 'utf8')) as {
      agentType?: unknown;
      description?: unknown;
    };
    const type = typeof meta.agentType === 'string' ? meta.agentType : 'subagent';
    return typeof meta.description === 'string' ? `${type}: ${meta.description}` : type;
  } catch {
    return null;
  }
}

export function createIndexer(deps: IndexerDeps) {
  const { stores, vectors, model } = deps;
  const { rows, sources } = stores;

  return async function indexFile(path: string, opts: IndexOptions = {}): Promise<IndexReport> {
    const file = resolve(path);
    const source = sourceOf(file, deps.logOwner);
    if (!source) {
      throw new AppError(
        'invalid_input',
        `${path}: not a transcript (the graph reads .jsonl and .ndjson files)`,
        { data: { field: 'path' } },
      );
    }
    let state = await sources.state(file);
    if (opts.untilText)
      await waitForText(file, state?.byteOffset ?? 0, opts.untilText, {
        waitMs: opts.waitMs ?? UNTIL_TEXT_WAIT_MS,
      });
    const identity = await fileIdentity(file, state?.byteOffset ?? 0);
    const report: IndexReport = {
      file,
      session: source.session,
      kind: source.kind,
      status: opts.dryRun ? 'dry-run' : 'indexed',
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
    if (state && !sameFile(state, identity)) {
      if (state.instance !== undefined && state.instance !== sources.instance) {
        throw new AppError(
          'unsupported',
          `${file}: instance ${state.instance} indexed another file at this path (on its own disk); not indexed here, so that its graph is kept`,
          { data: { field: 'path', instance: state.instance } },
        );
      }
      report.reset = true;
      if (!opts.dryRun) {
        const old = state.session;
        stores.db.transaction(() => {
          rows.deleteFile(file);
          sources.dropState(file);
          sources.dropIfEmpty(old);
        })();
      }
      state = null;
    }
    if (state && identity.size === state.byteOffset) {
      report.status = 'unchanged';
      return report;
    }

    const carry = readCarry(state?.carry ?? null);
    const wk =
      source.watchkeeperSessionId !== null ? deps.sessions?.get(source.watchkeeperSessionId) : null;
    const defaultAt = wk?.startedAt ?? Math.round(identity.mtimeMs);
    const title = source.kind === 'subagent' ? await subagentTitle(file) : null;
    let project: string | null = null;
    let lastTitle: string | null = title;
    let offset = state?.byteOffset ?? 0;
    let lastLine = state?.lastLine ?? 0;
    const policy = vectors.model ? VECTOR_POLICY : LEXICAL_POLICY;

    for await (const batch of readLines(
      file,
      { offset, line: lastLine },
      {
        maxLineBytes: deps.maxLineBytes,
        batchLines: BATCH_LINES,
        size: identity.size,
      },
    )) {
      const turns: Turn[] = [];
      let firstAt: number | null = null;
      let latestAt: number | null = null;
      for (const { line, bytes } of batch.lines) {
        const parsed = source.parse(bytes, line);
        if (parsed.meta.project && project === null) project = parsed.meta.project;
        if (parsed.meta.title && source.kind !== 'subagent') lastTitle = parsed.meta.title;
        if (parsed.meta.at !== undefined) {
          firstAt ??= parsed.meta.at;
          latestAt = parsed.meta.at;
        }
        turns.push(...parsed.turns);
      }
      // A watchkeeper log does not echo the prompt: it is the session's first turn.
      if (offset === 0 && wk?.prompt) {
        turns.unshift({ line: 0, role: 'user', text: wk.prompt, at: wk.startedAt });
      }
      report.lines += batch.lastLine - lastLine;
      report.oversized += batch.oversized;
      if (opts.dryRun) {
        const kept = turns.filter((t) => t.role !== 'tool' && !isLowValue(t));
        report.turns += kept.length;
        report.skipped += turns.filter((t) => t.role !== 'tool').length - kept.length;
        report.ideas += kept.reduce((n, t) => n + extractIdeas(t, { project }).length, 0);
      } else {
        const plan = await planBatch(turns, carry, {
          rows,
          vectors,
          model,
          policy,
          session: source.session,
          project,
          defaultAt,
        });
        const head = await fileIdentity(file, batch.endOffset);
        const now = deps.clock.now();
        stores.db.transaction(() => {
          const out = applyPlan(plan, carry, {
            stores,
            vectors,
            thresholds: deps.thresholds(),
            session: source.session,
            sourceFile: file,
            now,
          });
          report.ideas += out.ideas;
          report.spans += out.spans;
          report.relations += out.relations;
          sources.upsertSession({
            session: source.session,
            kind: source.kind,
            parentSession: source.parentSession,
            project,
            title: lastTitle,
            watchkeeperSessionId: source.watchkeeperSessionId,
            firstAt: firstAt ?? (plan.ideas.length > 0 ? defaultAt : null),
            lastAt: latestAt ?? (plan.ideas.length > 0 ? defaultAt : null),
          });
          sources.saveState({
            filePath: file,
            session: source.session,
            byteOffset: batch.endOffset,
            lastLine: batch.lastLine,
            identity: { ...identity, headHash: head.headHash },
            carry: JSON.stringify(carry),
            lastIndexed: now,
          });
        })();
        report.turns += plan.turnsRead - plan.turnsSkipped;
        report.skipped += plan.turnsSkipped;
      }
      opts.onLines?.(batch.lastLine - lastLine);
      offset = batch.endOffset;
      lastLine = batch.lastLine;
    }
    report.partialLine = identity.size > offset;
    if (!opts.dryRun && report.lines === 0 && !state) {
      // Only a partial line so far: remember the file with nothing read, so it shows as known.
      sources.saveState({
        filePath: file,
        session: source.session,
        byteOffset: 0,
        lastLine: 0,
        identity: { ...identity, headHash: (await fileIdentity(file, 0)).headHash },
        carry: null,
        lastIndexed: deps.clock.now(),
      });
    }
    return report;
  };
}

export type IndexFile = ReturnType<typeof createIndexer>;
