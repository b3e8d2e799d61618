/**
 * The graph's JSON, shared by `graph ... --json` and the HTTP API: snake_case fields, times as
 * ISO 8601 strings, like every other row (src/db/json.ts).
 */
import type {
  EntityRow,
  GraphCounts,
  GraphSessionRow,
  IdeaRow,
  SpanRow,
} from '../db/graph/graph.js';
import { isoTime } from '../db/json.js';
import type { AnswerGroup } from './answer.js';
import type { IndexReport } from './indexer.js';
import type { RememberAnswer } from './remember.js';
import type { IdeaRepeat } from './repeats.js';
import type { IdeaView, SessionView, TopicNode } from './views.js';

export function graphSessionJson(s: GraphSessionRow) {
  return {
    session: s.session,
    kind: s.kind,
    parent_session: s.parentSession,
    project: s.project,
    title: s.title,
    watchkeeper_session_id: s.watchkeeperSessionId,
    first_at: isoTime(s.firstAt),
    last_at: isoTime(s.lastAt),
  };
}

export function spanJson(s: SpanRow) {
  return {
    id: s.id,
    session: s.session,
    parent_id: s.parentId,
    name: s.name,
    summary: s.summary,
    depth: s.depth,
    source_file: s.sourceFile,
    start_line: s.startLine,
    end_line: s.endLine,
    created_at: isoTime(s.createdAt),
    ended_at: isoTime(s.endedAt),
  };
}

export function ideaJson(i: IdeaRow) {
  return {
    id: i.id,
    span_id: i.spanId,
    session: i.session,
    content: i.content,
    intent: i.intent,
    confidence: i.confidence,
    answered: i.answered,
    role: i.role,
    source_file: i.sourceFile,
    source_line: i.sourceLine,
    created_at: isoTime(i.createdAt),
  };
}

/** How often an idea's text was said: `count` 1 for an idea said once. */
function seenJson(r: IdeaRepeat) {
  return {
    count: r.count,
    sessions: r.sessions,
    first_at: isoTime(r.firstAt),
    last_at: isoTime(r.lastAt),
  };
}

export function entityJson(e: EntityRow) {
  return { id: e.id, name: e.name, type: e.type };
}

function groupJson(g: AnswerGroup) {
  return {
    span: g.span ? spanJson(g.span) : null,
    topic: g.topic ? spanJson(g.topic) : null,
    session: g.session ? graphSessionJson(g.session) : null,
    ideas: g.ideas.map((a) => ({
      ...ideaJson(a.idea),
      score: Math.round(a.score * 1e6) / 1e6,
      via: a.via,
      entities: a.entities,
      chain:
        a.chain?.map((l) => ({ id: l.id, content: l.content, created_at: isoTime(l.createdAt) })) ??
        null,
      seen: seenJson(a.seen),
    })),
  };
}

export function rememberJson(a: RememberAnswer) {
  const q = a.analysis;
  return {
    query: a.query,
    mode: a.mode,
    analysis: {
      search: q.search,
      since: isoTime(q.since),
      until: isoTime(q.until),
      temporal: q.temporal,
      recency: q.recency,
      intents: q.intents,
      prefer_intents: q.preferIntents,
      open_only: q.openOnly,
      entities: q.entities.map((e) => ({ name: e.name, type: e.type })),
      vague: q.vague,
    },
    used_hyde: a.usedHyde,
    budget: a.budget,
    tokens: a.tokens,
    note: a.note,
    groups: a.groups.map(groupJson),
    text: a.text,
  };
}

function topicJson(n: TopicNode): unknown {
  return {
    ...spanJson(n.span),
    idea_count: n.ideaCount,
    ideas: n.ideas.map(ideaJson),
    children: n.children.map(topicJson),
  };
}

export function sessionViewJson(v: SessionView) {
  return { ...graphSessionJson(v.session), topics: v.topics.map(topicJson) };
}

export function ideaViewJson(v: IdeaView) {
  return {
    ...ideaJson(v.idea),
    span: v.span ? spanJson(v.span) : null,
    topic: v.topic ? spanJson(v.topic) : null,
    session_info: v.session ? graphSessionJson(v.session) : null,
    entities: v.entities.map(entityJson),
    relations: v.related.map((r) => ({
      type: r.relation.type,
      direction: r.direction,
      idea: ideaJson(r.other),
    })),
    seen: seenJson(v.seen),
  };
}

export function countsJson(c: GraphCounts) {
  return {
    sessions: c.sessions,
    files: c.files,
    spans: c.spans,
    topics: c.topics,
    ideas: c.ideas,
    entities: c.entities,
    relations: c.relations,
    ideas_by_intent: c.byIntent,
    relations_by_type: c.byRelation,
    open_questions: c.openQuestions,
    last_indexed: isoTime(c.lastIndexed),
  };
}

export function indexReportJson(
  r: IndexReport | (Omit<IndexReport, 'status'> & { status: string }),
) {
  return {
    file: r.file,
    session: r.session,
    kind: r.kind,
    status: r.status,
    reset: r.reset,
    lines: r.lines,
    turns: r.turns,
    skipped_turns: r.skipped,
    ideas: r.ideas,
    spans: r.spans,
    relations: r.relations,
    oversized_lines: r.oversized,
    partial_line: r.partialLine,
  };
}
