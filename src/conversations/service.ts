/**
 * Conversation memory as a service (seeds 000 and 001): clients post each message in order;
 * each round is answered with the latest summary, the messages after it and the relevant
 * memories; summaries and extraction run in the background through the model gateway and never
 * delay either answer. With no model configured, posting and context still work: the context is
 * then the raw recent messages.
 */
import type { Clock } from '../clock.js';
import {
  type ConversationRow,
  type DatabaseOutage,
  isUnreachableError,
  type MessageRow,
  type Stores,
  type SummaryRow,
} from '../db/index.js';
import { AppError } from '../errors.js';
import type { Gateway } from '../gateway/index.js';
import type { Knowledge } from '../knowledge/index.js';
import type { Logger } from '../log.js';
import { estimateTokens } from '../memory/index.js';
import { createExtractor } from './extractor.js';
import { type MessageInput, parseScope } from './input.js';
import { readMessagePage } from './message-page.js';
import { createSummarizer, type SummarizerOptions } from './summarizer.js';

export interface ConversationOptions extends SummarizerOptions {
  /** One scope for every conversation; null: each its own (`conversation:ID`). */
  scope: string | null;
  extractEveryMessages: number;
  extractIntervalMs: number;
  /** Token budget of the memories in a context answer (seed 000: 500). */
  memoryTokens?: number;
  /** Most messages a context answer carries (the newest kept; MAX_PAGE_BYTES of them at most). */
  maxGapMessages?: number;
}

export const DEFAULT_CONVERSATION_OPTIONS: ConversationOptions = {
  scope: null,
  windowSize: 14,
  summarizeAfterSeq: 5,
  staleAfterMs: 5 * 60_000,
  extractEveryMessages: 10,
  extractIntervalMs: 60_000,
};

const MEMORY_TOKENS = 500;
const MAX_GAP_MESSAGES = 100;
const MEMORY_CANDIDATES = 10;
/** How many conversations one timed sweep extracts. */
const SWEEP_LIMIT = 50;

export type PostOutcome =
  | { kind: 'created' | 'duplicate'; message: MessageRow; conversation: ConversationRow }
  | { kind: 'conflict'; expectedSeq: number; message: string }
  | { kind: 'scope_mismatch'; scope: string; message: string };

export interface ContextMemory {
  id: number;
  observation: string;
  importance: string;
  scope: string;
  sourceRef: string | null;
  score: number;
}

export interface ConversationContext {
  conversation: ConversationRow;
  summary: SummaryRow | null;
  /** The messages after the summary's end (all of them while no summary is ready), oldest first. */
  gapMessages: MessageRow[];
  /** Messages the gap left out, oldest first (over the cap of a context answer). */
  omittedMessages: number;
  memories: ContextMemory[];
  /** The summary job running now, if any (observability). */
  processing: SummaryRow | null;
}

export function createConversations(deps: {
  stores: Pick<Stores, 'conversations' | 'summaries' | 'extractions' | 'scopes'>;
  knowledge: Pick<Knowledge, 'memory' | 'search'>;
  gateway: Gateway;
  clock: Clock;
  log?: Logger;
  /** The process's record of a lost database: an extraction cut short by it is reported there. */
  outage?: DatabaseOutage;
  options?: Partial<ConversationOptions>;
}) {
  const { stores, knowledge, gateway, clock } = deps;
  const options = { ...DEFAULT_CONVERSATION_OPTIONS, ...deps.options };
  const pending = new Set<Promise<unknown>>();
  const track = (job: Promise<unknown>) => {
    pending.add(job);
    // Settled either way: a failed job is reported by its owner, never an unhandled rejection.
    const done = () => void pending.delete(job);
    job.then(done, done);
  };
  const summarizer = createSummarizer({
    conversations: stores.conversations,
    summaries: stores.summaries,
    gateway,
    clock,
    ...(deps.log ? { log: deps.log } : {}),
    options,
    track,
  });
  const extractor = createExtractor({
    conversations: stores.conversations,
    extractions: stores.extractions,
    knowledge,
    gateway,
    clock,
    ...(deps.log ? { log: deps.log } : {}),
  });
  // One extraction at a time per conversation; a trigger meanwhile runs it once more after.
  const extracting = new Map<string, { again: boolean }>();
  let closed = false;

  const extractInBackground = (id: string): void => {
    if (closed) return;
    const running = extracting.get(id);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    extracting.set(id, state);
    track(
      (async () => {
        try {
          do {
            state.again = false;
            await extractor.run(id);
          } while (state.again && !closed);
        } catch (err) {
          // The timed sweep finds the conversation due again once the database answers.
          if (isUnreachableError(err) && deps.outage) {
            deps.outage.lost('conversation extraction', err);
          } else {
            deps.log?.error('conversation extraction failed', {
              conversation: id,
              error: err as Error,
            });
          }
        } finally {
          extracting.delete(id);
        }
      })(),
    );
  };

  const mustGet = async (id: string): Promise<ConversationRow> => {
    const c = await stores.conversations.get(id);
    if (!c) throw new AppError('not_found', `conversation ${id} does not exist`, { data: { id } });
    return c;
  };

  const scopeFor = (id: string) => options.scope ?? `conversation:${id}`;

  /** The memories of the conversation's own scope and the shared ones, within 500 tokens. */
  const memoriesFor = async (conv: ConversationRow, query: string): Promise<ContextMemory[]> => {
    if (query.trim() === '') return [];
    const scopes = [...new Set([conv.scope, ...(await stores.scopes.shared())])];
    const answer = await knowledge.search.search(query, {
      limit: MEMORY_CANDIDATES,
      scopes,
      minCosine: knowledge.search.thresholds().related,
    });
    const out: ContextMemory[] = [];
    let tokens = 0;
    for (const r of answer.results) {
      const cost = estimateTokens(r.memory.observation) + 4;
      if (tokens + cost > (options.memoryTokens ?? MEMORY_TOKENS)) break;
      tokens += cost;
      out.push({
        id: r.memory.id,
        observation: r.memory.observation,
        importance: r.memory.importance,
        scope: r.memory.scope,
        sourceRef: r.memory.sourceRef,
        score: r.why.score,
      });
    }
    return out;
  };

  return {
    options,

    /** The scope a new conversation with this id gets. */
    scopeFor,

    /**
     * Stores a message (idempotent on its seq when the client sends one), then starts what the
     * round calls for in the background: a summary after an assistant message, extraction
     * every N messages. Returns once the message is stored (awaited: on PostgreSQL the event
     * loop goes on meanwhile).
     */
    async post(id: string, input: MessageInput): Promise<PostOutcome> {
      const outcome = await stores.conversations.append({
        conversationId: id,
        scope: input.scope ?? scopeFor(id),
        requireScope: input.scope !== undefined,
        role: input.role,
        content: input.content,
        ...(input.seq !== undefined ? { seq: input.seq } : {}),
        at: clock.now(),
      });
      if (outcome.kind === 'conflict') {
        return {
          kind: 'conflict',
          expectedSeq: outcome.expectedSeq,
          message: outcome.existing
            ? `seq ${input.seq} of conversation ${id} holds another message; the next seq is ${outcome.expectedSeq}`
            : `seq ${input.seq} would leave a gap in conversation ${id}; the next seq is ${outcome.expectedSeq}`,
        };
      }
      if (outcome.kind === 'scope_mismatch') {
        return {
          kind: 'scope_mismatch',
          scope: outcome.scope,
          message: `conversation ${id} belongs to scope "${outcome.scope}", not "${input.scope}"`,
        };
      }
      if (outcome.kind === 'created') {
        const conv = outcome.conversation;
        // Seed 001: summarisation is checked at the end of a round.
        if (input.role === 'assistant') await summarizer.trigger(id, outcome.message.seq);
        if (conv.lastSeq - conv.extractedThroughSeq >= options.extractEveryMessages) {
          extractInBackground(id);
        }
      }
      return outcome;
    },

    /**
     * Seed 001's `get_context_for_workflow`: the latest completed summary and the messages after
     * it, or every earlier message while none is ready; plus the relevant memories for `query`
     * (default: the newest user message).
     */
    async context(id: string, opts: { query?: string } = {}): Promise<ConversationContext> {
      const conv = await mustGet(id);
      const [summary, processing] = await Promise.all([
        stores.summaries.latestCompleted(id),
        stores.summaries.processing(id),
      ]);
      const from = summary ? summary.endSeq + 1 : 0;
      const gap = await readMessagePage(stores.conversations, id, {
        from,
        before: conv.lastSeq + 1,
        limit: options.maxGapMessages ?? MAX_GAP_MESSAGES,
      });
      const gapMessages = gap.messages;
      const query =
        opts.query ?? [...gapMessages].reverse().find((m) => m.role === 'user')?.content ?? '';
      return {
        conversation: conv,
        summary,
        gapMessages,
        omittedMessages: gap.omitted,
        memories: await memoriesFor(conv, query),
        processing,
      };
    },

    get: mustGet,

    /** Shares a scope with the ops sessions (their block then includes its memories), or stops. */
    async share(scope: string, shared: boolean): Promise<void> {
      await stores.scopes.setShared(parseScope(scope), shared, clock.now());
    },

    /**
     * The timed half of the extraction trigger (every M seconds): conversations with unread
     * messages whose last extraction is older than the interval. Serve calls it periodically.
     */
    async tick(): Promise<number> {
      if (closed || !gateway.available) return 0;
      const due = await stores.conversations.dueForExtraction(
        clock.now() - options.extractIntervalMs,
        SWEEP_LIMIT,
      );
      for (const c of due) extractInBackground(c.id);
      return due.length;
    },

    /** Starts an extraction of one conversation now (the CLI and tests). */
    async extractNow(id: string): Promise<void> {
      await mustGet(id);
      extractInBackground(id);
    },

    /** Resolves when no background job is left (tests, shutdown). */
    async idle(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },

    /** No new background work; waits for what runs. */
    async close(): Promise<void> {
      closed = true;
      await this.idle();
    },
  };
}

export type Conversations = ReturnType<typeof createConversations>;
