/**
 * One batch of turns planned (seed 004 section 4.2, steps 2-4): low-value turns skipped, ideas
 * extracted (model port or rules), embedded, each turn judged for a topic shift, spans opened,
 * split and closed, and the touched spans named and summarised. Everything asynchronous (model
 * and embedder) happens here, so that the write (apply.ts) is one synchronous transaction.
 * Spans this batch creates carry negative placeholder ids until they are written.
 */
import type { GraphStore } from '../db/graph/graph.js';
import { normalise } from '../memory/index.js';
import type { Carry } from './carry.js';
import type { ExtractedIdea } from './extract.js';
import type { GraphModel } from './model-port.js';
import { extractiveSummary, keywordName, type SpanIdea } from './summary.js';
import { judgeTurn, type OpenSpan, type TopicPolicy } from './topics.js';
import { isLowValue, type Turn } from './turns.js';
import type { GraphVectors } from './vectors.js';

/** Characters of a window turn kept with the tool output after it. */
const WINDOW_TEXT_CHARS = 1000;

export interface PlanSpan {
  id: number;
  depth: 0 | 1;
  parentId: number | null;
  startLine: number;
  createdAt: number;
  /** Set when the span ends in this batch. */
  endLine: number | null;
  endedAt: number | null;
  isNew: boolean;
  /** The first sub-span of a topic split now: the topic's stored ideas move into it. */
  takesIdeasOf: number | null;
  name: string;
  summary: string;
  vector: Float32Array | null;
}

export interface PlanIdea extends ExtractedIdea {
  spanId: number;
  vector: Float32Array | null;
}

export interface BatchPlan {
  spans: PlanSpan[];
  ideas: PlanIdea[];
  /** The text of each turn that has ideas, by `line:role`. */
  turnTexts: Map<string, string>;
  turnsRead: number;
  turnsSkipped: number;
}

export interface PlanDeps {
  rows: GraphStore;
  vectors: GraphVectors;
  model: GraphModel;
  policy: TopicPolicy;
  session: string;
  project: string | null;
  /** When the turn does not say (a watchkeeper log): the session's start. */
  defaultAt: number;
}

function ideaOf(
  i: { content: string; intent: SpanIdea['intent']; answered: boolean | null },
  entities: SpanIdea['entities'],
): SpanIdea {
  return { content: i.content, intent: i.intent, answered: i.answered, entities };
}

export async function planBatch(
  turns: readonly Turn[],
  carry: Carry,
  deps: PlanDeps,
): Promise<BatchPlan> {
  const { vectors, model, policy } = deps;
  const kept = turns.filter((t) => t.role !== 'tool' && !isLowValue(t));
  const extracted = await model.extractIdeas(kept, { project: deps.project });
  const embedded = await vectors.documents(extracted.map((i) => i.content));
  const ideas: PlanIdea[] = extracted.map((i, k) => ({
    ...i,
    at: i.at ?? deps.defaultAt,
    spanId: 0,
    vector: embedded?.[k] ?? null,
  }));
  const byLine = new Map<number, PlanIdea[]>();
  for (const idea of ideas) {
    const list = byLine.get(idea.line) ?? [];
    list.push(idea);
    byLine.set(idea.line, list);
  }

  const spans = new Map<number, PlanSpan>();
  let nextTemp = -1;
  const state = carry.topics;
  const touch = (open: OpenSpan, depth: 0 | 1, parentId: number | null): PlanSpan => {
    let s = spans.get(open.id);
    if (!s) {
      s = {
        id: open.id,
        depth,
        parentId,
        startLine: open.startLine,
        createdAt: open.at,
        endLine: null,
        endedAt: null,
        isNew: open.id < 0,
        takesIdeasOf: null,
        name: open.name ?? '',
        summary: '',
        vector: null,
      };
      spans.set(open.id, s);
    }
    return s;
  };
  const open = (
    depth: 0 | 1,
    parentId: number | null,
    line: number,
    at: number,
    name: string | null,
  ) => {
    const span: OpenSpan = { id: nextTemp--, startLine: line, turns: 0, at, name };
    touch(span, depth, parentId);
    return span;
  };
  const close = (
    span: OpenSpan | null,
    depth: 0 | 1,
    parentId: number | null,
    endLine: number,
    at: number,
  ) => {
    if (!span) return;
    const s = touch(span, depth, parentId);
    s.endLine = endLine;
    s.endedAt = at;
  };
  // The spans open at the start of the batch take part even if nothing closes them.
  if (state.topic) touch(state.topic, 0, null);
  if (state.sub && state.topic) touch(state.sub, 1, state.topic.id);

  const keptSet = new Set(kept);
  for (const turn of turns) {
    if (turn.role === 'tool') {
      // A tool's output is context for the topic window (its words), never an idea.
      const last = state.window.at(-1);
      if (last) last.text = `${last.text} ${turn.text}`.slice(0, WINDOW_TEXT_CHARS);
      continue;
    }
    if (!keptSet.has(turn)) continue;
    const own = byLine.get(turn.line)?.filter((i) => i.role === turn.role) ?? [];
    if (own.length === 0) continue;
    const at = turn.at ?? deps.defaultAt;
    const sum = own.every((i) => i.vector !== null)
      ? normalise(
          own.reduce((acc, i) => {
            for (let d = 0; d < acc.length; d += 1) acc[d]! += i.vector![d]!;
            return acc;
          }, new Float32Array(own[0]!.vector!.length)),
        )
      : null;
    const previousLine = state.lastLine;
    const previousAt = state.lastAt ?? at;
    const decision = await judgeTurn(
      state,
      { line: turn.line, text: turn.text, at, vector: sum },
      policy,
      (before, after) => model.confirmShift(before, after),
    );
    if (decision.kind === 'topic') {
      if (state.topic) {
        close(state.sub, 1, state.topic.id, previousLine, previousAt);
        close(state.topic, 0, null, previousLine, previousAt);
      }
      state.topic = open(0, null, turn.line, at, decision.name);
      state.sub = null;
    } else if (decision.kind === 'sub' && state.topic) {
      if (state.sub) {
        close(state.sub, 1, state.topic.id, previousLine, previousAt);
      } else {
        // The first split: what the topic said so far becomes its first sub-span.
        const first = open(1, state.topic.id, state.topic.startLine, state.topic.at, null);
        first.turns = state.topic.turns;
        const s = spans.get(first.id)!;
        s.takesIdeasOf = state.topic.id;
        for (const idea of ideas) if (idea.spanId === state.topic.id) idea.spanId = first.id;
        close(first, 1, state.topic.id, previousLine, previousAt);
      }
      state.sub = open(1, state.topic.id, turn.line, at, null);
    }
    state.topic!.turns += 1;
    if (state.sub) state.sub.turns += 1;
    for (const idea of own) idea.spanId = (state.sub ?? state.topic!).id;
  }

  // An idea whose turn was not judged (none should be) goes with the current span.
  for (const idea of ideas)
    if (idea.spanId === 0 && state.topic) idea.spanId = (state.sub ?? state.topic).id;

  await describeSpans([...spans.values()], ideas, deps);
  return {
    spans: [...spans.values()],
    ideas: ideas.filter((i) => i.spanId !== 0),
    turnTexts: new Map(kept.map((t) => [`${t.line}:${t.role}`, t.text])),
    turnsRead: turns.filter((t) => t.role !== 'tool').length,
    turnsSkipped: turns.filter((t) => t.role !== 'tool').length - kept.length,
  };
}

/** Names and summaries of the touched spans (the model's for those that ended, rules otherwise). */
async function describeSpans(
  spans: PlanSpan[],
  ideas: readonly PlanIdea[],
  deps: PlanDeps,
): Promise<void> {
  const { rows, model, vectors } = deps;
  // Awaited, outside any transaction: the batches before this one are committed.
  const stored = async (ids: number[]): Promise<SpanIdea[]> => {
    const real = ids.filter((id) => id > 0);
    const list = await rows.ideasOfSpans(real);
    const entities = await rows.entitiesOfAwaited(list.map((i) => i.id));
    return list.map((i) => ideaOf(i, entities.get(i.id) ?? []));
  };
  // Read once: nothing is written while a batch is planned.
  let sessionSpans: Awaited<ReturnType<typeof rows.spansOfSession>> | null = null;
  const childrenOf = async (id: number) => [
    ...spans.filter((s) => s.parentId === id).map((s) => s.id),
    ...(id > 0
      ? (sessionSpans ??= await rows.spansOfSession(deps.session))
          .filter((s) => s.parentId === id)
          .map((s) => s.id)
      : []),
  ];
  for (const span of spans) {
    const ids = [span.id, ...(span.depth === 0 ? await childrenOf(span.id) : [])];
    if (span.takesIdeasOf !== null) ids.push(span.takesIdeasOf);
    const own = [
      ...(await stored([...new Set(ids)])),
      ...ideas
        .filter((i) => ids.includes(i.spanId))
        .map((i) => ideaOf({ ...i, answered: null }, i.entities)),
    ];
    const stillOpen = span.endLine === null;
    const given = span.name || null;
    if (stillOpen || model.offline) {
      span.name = given ?? keywordName(own);
      span.summary = extractiveSummary(span.name, own);
    } else {
      span.name = given ?? (await model.nameSpan(own));
      span.summary = await model.summariseSpan(span.name, own);
    }
  }
  const texts = spans.map((s) => `${s.name}. ${s.summary}`);
  const embedded = await vectors.documents(texts);
  spans.forEach((s, k) => (s.vector = embedded?.[k] ?? null));
}
