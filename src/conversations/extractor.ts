/**
 * Seed 000's two-tier extraction (section 4.2), in the background: the conversation's new
 * messages are cut into ~500-token windows with ~100 tokens of overlap (user and assistant
 * messages only: never tool outputs or system prompts); each window goes to the gate (worth
 * remembering? yes/no and a reason, kept for review), and only the yes-windows to the extractor,
 * which sees the window and the most relevant existing memories and returns structured memories.
 * Each candidate goes through the one memory service (dedup, reinforcement, supersession) with
 * its source (`conversation ID #a-b`) and the conversation's scope. Instances sharing a database
 * take turns: a run claims the conversation first (renewed after each window) and skips it while
 * another instance's claim holds.
 */
import type { Clock } from '../clock.js';
import type {
  ConversationStore,
  ExtractedMemory,
  ExtractionStore,
  Importance,
  NewExtractionWindow,
} from '../db/index.js';
import type { Gateway, GatewayResult } from '../gateway/index.js';
import type { Knowledge } from '../knowledge/index.js';
import type { Logger } from '../log.js';
import { MAX_OBSERVATION_LENGTH, textSimilarity } from '../memory/index.js';
import { stripControlCharacters } from '../text-rules.js';
import {
  EXTRACT_SCHEMA,
  EXTRACT_SYSTEM,
  extractPrompt,
  GATE_SCHEMA,
  GATE_SYSTEM,
  windowPrompt,
} from './prompts.js';
import { type ExtractionWindow, extractionWindows } from './window-math.js';

export const WINDOW_TOKENS = 500;
export const OVERLAP_TOKENS = 100;
/** Messages read before the cursor, from which the first window takes its overlap. */
const LOOK_BACK = 20;
/** Existing memories shown to the extractor (seed 000: "for dedup"). */
const EXISTING_SHOWN = 5;
/** A candidate this close to one the same conversation yielded from an overlapping window is the
 * overlap read twice, not a second observation. */
const ECHO_SIMILARITY = 0.8;

/**
 * How long a claim on a conversation's extraction lasts without renewal: longer than one window's
 * gate and extractor calls with their retries. An instance that dies holds it no longer.
 */
export const EXTRACT_CLAIM_MS = 30 * 60_000;

/** The extractor's 1-5 as the store's importance (seed 002's low/normal/high/core). */
export function importanceOf(score: number): Importance {
  if (score >= 5) return 'core';
  if (score === 4) return 'high';
  if (score === 3) return 'normal';
  return 'low';
}

/** Failures worth trying again later (the backend is down or slow), unlike a bad answer. */
function transient(r: GatewayResult): boolean {
  return !r.ok && r.outcome !== 'invalid_output';
}

export function createExtractor(deps: {
  conversations: ConversationStore;
  extractions: ExtractionStore;
  knowledge: Pick<Knowledge, 'memory' | 'search'>;
  gateway: Gateway;
  clock: Clock;
  log?: Logger;
}) {
  const { conversations, extractions, knowledge, gateway, clock } = deps;

  /** Gate, then extractor, for one window; returns false to stop (retry later). */
  const processWindow = async (
    conversationId: string,
    scope: string,
    w: ExtractionWindow,
  ): Promise<boolean> => {
    const range = `#${w.startSeq}-${w.endSeq}`;
    const base: Omit<NewExtractionWindow, 'status'> = {
      conversationId,
      startSeq: w.startSeq,
      endSeq: w.endSeq,
      tokens: w.tokens,
      worth: null,
      reason: null,
      gateJobId: null,
      extractJobId: null,
      candidates: 0,
      created: 0,
      reinforced: 0,
      error: null,
      at: clock.now(),
    };
    const gate = await gateway.run({
      kind: 'gate',
      system: GATE_SYSTEM,
      prompt: windowPrompt(w),
      schema: GATE_SCHEMA,
      ref: `conversation ${conversationId} ${range} gate`,
      maxTokens: 300,
    });
    if (!gate.ok) {
      await extractions.record(
        { ...base, status: 'failed', gateJobId: gate.jobId, error: gate.error },
        [],
      );
      return !transient(gate);
    }
    const decision = { worth: gate.json!.worth_remembering, reason: gate.json!.reason };
    if (!decision.worth) {
      await extractions.record(
        { ...base, ...decision, status: 'rejected', gateJobId: gate.jobId },
        [],
      );
      return true;
    }
    const text = w.messages.map((m) => m.content).join('\n');
    const existing = await knowledge.search.search(text, {
      limit: EXISTING_SHOWN,
      scopes: [scope],
    });
    const extract = await gateway.run({
      kind: 'extract',
      system: EXTRACT_SYSTEM,
      prompt: extractPrompt({ ...w, existing: existing.results.map((r) => r.memory.observation) }),
      schema: EXTRACT_SCHEMA,
      ref: `conversation ${conversationId} ${range} extract`,
    });
    if (!extract.ok) {
      // Nothing is stored from an answer that does not fit the schema.
      await extractions.record(
        {
          ...base,
          ...decision,
          status: 'failed',
          gateJobId: gate.jobId,
          extractJobId: extract.jobId,
          error: extract.error,
        },
        [],
      );
      return !transient(extract);
    }
    // What this conversation already yielded from windows overlapping this one.
    const overlapping = (await extractions.memories(conversationId, 200)).filter(
      (m) => m.endSeq >= w.startSeq && m.startSeq <= w.endSeq && m.observation !== null,
    );
    const yielded: ExtractedMemory[] = [];
    let created = 0;
    let reinforced = 0;
    for (const c of extract.json!.memories) {
      const content = stripControlCharacters(c.content).trim().slice(0, MAX_OBSERVATION_LENGTH);
      if (content === '') continue;
      if (overlapping.some((m) => textSimilarity(m.observation!, content) >= ECHO_SIMILARITY)) {
        continue;
      }
      const outcome = await knowledge.memory.observe({
        service: null,
        // The ops categories do not describe conversation memories; the extractor's own type
        // is kept with the record (conversation_memories.type).
        category: 'behavior',
        observation: content,
        sessionId: null,
        tier: 1,
        source: 'conversation',
        sourceRef: `conversation ${conversationId} ${range}`,
        importance: importanceOf(c.importance),
        scope,
      });
      if (outcome.action === 'reinforced') reinforced += 1;
      else created += 1;
      yielded.push({
        memoryId: outcome.memory.id,
        action: outcome.action,
        type: c.type,
        importance: c.importance,
        tags: c.topic_tags
          .map((t) => stripControlCharacters(t).trim().toLowerCase())
          .filter(Boolean),
      });
    }
    await extractions.record(
      {
        ...base,
        ...decision,
        status: 'extracted',
        gateJobId: gate.jobId,
        extractJobId: extract.jobId,
        candidates: extract.json!.memories.length,
        created,
        reinforced,
      },
      yielded,
    );
    return true;
  };

  /** Reads what is new, holding the claim (renewed after each window); the cursor is read now. */
  const extractClaimed = async (
    conversationId: string,
    renew: () => Promise<boolean>,
  ): Promise<{ windows: number }> => {
    const conv = await conversations.get(conversationId);
    if (!conv || conv.lastSeq <= conv.extractedThroughSeq) return { windows: 0 };
    const fromSeq = conv.extractedThroughSeq + 1;
    const messages = (
      await conversations.messages(conversationId, Math.max(0, fromSeq - LOOK_BACK), conv.lastSeq)
    ).filter((m) => m.role === 'user' || m.role === 'assistant');
    const windows = extractionWindows(messages, {
      fromSeq,
      windowTokens: WINDOW_TOKENS,
      overlapTokens: OVERLAP_TOKENS,
    });
    let done = 0;
    for (const w of windows) {
      if (!(await processWindow(conversationId, conv.scope, w))) {
        deps.log?.warn('conversation extraction paused: the model gateway failed', {
          conversation: conversationId,
          window: `${w.startSeq}-${w.endSeq}`,
        });
        return { windows: done };
      }
      await conversations.markExtracted(conversationId, w.endSeq, clock.now());
      done += 1;
      // The claim ran out (another instance may read on from the cursor): stop here.
      if (!(await renew())) return { windows: done };
    }
    // Tool and system messages after the last window are read too: there is nothing in them.
    await conversations.markExtracted(conversationId, conv.lastSeq, clock.now());
    return { windows: done };
  };

  return {
    /**
     * Reads what is new in one conversation, window by window, moving its cursor as each window
     * is done. Stops at a window the backend could not answer (it is read again next time).
     * Nothing is read while another instance holds the conversation's claim.
     */
    async run(conversationId: string): Promise<{ windows: number }> {
      const seen = await conversations.get(conversationId);
      if (!seen || seen.lastSeq <= seen.extractedThroughSeq) return { windows: 0 };
      if (!gateway.available || (await gateway.state()).budgetReached) return { windows: 0 };
      const claim = () => {
        const at = clock.now();
        return conversations.claimExtraction(conversationId, at, at + EXTRACT_CLAIM_MS);
      };
      if (!(await claim())) {
        deps.log?.debug('conversation extraction skipped: another instance is reading it', {
          conversation: conversationId,
        });
        return { windows: 0 };
      }
      try {
        return await extractClaimed(conversationId, claim);
      } finally {
        await conversations.releaseExtraction(conversationId);
      }
    },
  };
}

export type Extractor = ReturnType<typeof createExtractor>;
