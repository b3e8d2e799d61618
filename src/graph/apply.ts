/**
 * A planned batch written (seed 004 section 4.2, steps 5 and 6): spans created, split and closed,
 * ideas stored with their entities and vectors, and relations found against similar ideas, the
 * latest of the same session and the nearest of any. Synchronous: the caller runs it in the one
 * transaction that also advances the file's index state, so a batch is stored whole or not at all.
 */
import type { GraphStores } from '../db/graph/graph.js';
import type { SimilarityThresholds } from '../memory/index.js';
import { createCandidates, entityKeys } from './candidates.js';
import type { Carry } from './carry.js';
import type { BatchPlan, PlanIdea } from './plan.js';
import { detectRelations, type RelIdea, similarity } from './relations.js';
import type { GraphVectors } from './vectors.js';

export interface ApplyDeps {
  stores: GraphStores;
  vectors: GraphVectors;
  thresholds: SimilarityThresholds;
  session: string;
  sourceFile: string;
  now: number;
}

export interface ApplyOutcome {
  spans: number;
  ideas: number;
  relations: number;
}

/** Characters of a turn kept as the words around an idea: its own turn, and the turns near it. */
const TURN_CHARS = 600;
const NEAR_CHARS = 300;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max) : flat;
}

const ANSWER_INTENTS = new Set(['solution', 'decision', 'conclusion']);

export function applyPlan(plan: BatchPlan, carry: Carry, deps: ApplyDeps): ApplyOutcome {
  // The words around ideas are written once each, at the end (idea-context-writes.ts).
  try {
    const out = writePlan(plan, carry, deps);
    deps.stores.search.flushContext();
    return out;
  } catch (err) {
    deps.stores.search.dropContext();
    throw err;
  }
}

function writePlan(plan: BatchPlan, carry: Carry, deps: ApplyDeps): ApplyOutcome {
  const { stores, vectors, session, sourceFile, now } = deps;
  const { rows, search } = stores;
  const ids = new Map<number, number>();
  const real = (id: number) => (id > 0 ? id : ids.get(id)!);

  // Spans: topics before their sub-spans, so a parent always exists.
  const created = plan.spans
    .filter((s) => s.isNew)
    .sort((a, b) => a.depth - b.depth || b.id - a.id);
  for (const s of created) {
    ids.set(
      s.id,
      rows.insertSpan({
        session,
        parentId: s.parentId === null ? null : real(s.parentId),
        name: s.name,
        summary: s.summary,
        sourceFile,
        startLine: s.startLine,
        endLine: s.endLine,
        depth: s.depth,
        createdAt: s.createdAt,
        endedAt: s.endedAt,
      }),
    );
  }
  for (const s of plan.spans) {
    if (s.takesIdeasOf !== null && s.takesIdeasOf > 0) rows.moveIdeas(s.takesIdeasOf, real(s.id));
    if (!s.isNew) {
      rows.updateSpan(s.id, {
        name: s.name,
        summary: s.summary,
        ...(s.endLine !== null ? { endLine: s.endLine, endedAt: s.endedAt } : {}),
      });
    }
  }
  vectors.putSpans(
    plan.spans.filter((s) => s.vector !== null).map((s) => ({ id: real(s.id), vector: s.vector! })),
    now,
  );

  const candidates = createCandidates(stores, vectors);
  let relations = 0;
  const relate = (
    from: number,
    to: RelIdea,
    type: Parameters<typeof rows.addRelation>[2],
    at: number,
  ) => {
    if (rows.addRelation(from, to.id, type, at)) relations += 1;
    if (type === 'answers' && to.intent === 'question') {
      rows.setAnswered(to.id, true);
      candidates.answered(to.id);
    }
  };

  // Ideas, turn by turn, so that a reply answers the questions of the prompt before it.
  let lastQuestions = carry.openQuestions;
  const turns = new Map<string, PlanIdea[]>();
  for (const idea of plan.ideas) {
    const key = `${idea.line}:${idea.role}`;
    turns.set(key, [...(turns.get(key) ?? []), idea]);
  }
  const turnText = (group: PlanIdea[]) =>
    plan.turnTexts.get(`${group[0]!.line}:${group[0]!.role}`) ??
    group.map((i) => i.content).join(' ');
  search.primeWords([
    ...plan.ideas.map((i) => i.content),
    ...[...turns.values()].flatMap((g) => [
      clip(turnText(g), TURN_CHARS),
      clip(turnText(g), NEAR_CHARS),
    ]),
  ]);
  let stored = 0;
  for (const group of turns.values()) {
    const inserted: RelIdea[] = [];
    for (const idea of group) {
      const id = rows.insertIdea({
        spanId: real(idea.spanId),
        session,
        content: idea.content,
        intent: idea.intent,
        confidence: idea.confidence,
        answered: idea.intent === 'question' ? false : null,
        role: idea.role,
        sourceFile,
        sourceLine: idea.line,
        createdAt: idea.at ?? now,
      });
      stored += 1;
      rows.linkEntities(
        id,
        idea.entities.map((e) => rows.entityId(e.name, e.type, e.alias)),
      );
      if (idea.vector) vectors.putIdeas([{ id, vector: idea.vector }], now);
      const rel: RelIdea & { cue: PlanIdea['cue'] } = {
        id,
        session,
        intent: idea.intent,
        content: idea.content,
        role: idea.role,
        answered: idea.intent === 'question' ? false : null,
        sourceLine: idea.line,
        createdAt: idea.at ?? now,
        vector: idea.vector,
        entities: entityKeys(idea.entities),
        cue: idea.cue,
      };
      inserted.push(rel);
      candidates.stored(rel);
      if (idea.intent === 'context' && idea.cue === null) continue;
      const compared = candidates.of(rel);
      for (const found of detectRelations(rel, compared, deps.thresholds)) {
        const target = compared.find((c) => c.id === found.toId);
        if (target) relate(id, target, found.type, idea.at ?? now);
      }
    }
    // Key expansion: the idea is found by its turn's words and by those of the turns around it.
    const text = turnText(group);
    const ids = inserted.map((i) => i.id);
    const [before2, before1] = [carry.recent.at(-2), carry.recent.at(-1)];
    search.setContext(ids, {
      turn: clip(text, TURN_CHARS),
      near: before1?.text ?? '',
      far: before2?.text ?? '',
    });
    if (before1) search.addContext(before1.ideaIds, 'near', clip(text, NEAR_CHARS));
    if (before2) search.addContext(before2.ideaIds, 'far', clip(text, NEAR_CHARS));
    carry.recent = [...carry.recent, { text: clip(text, NEAR_CHARS), ideaIds: ids }].slice(-2);

    const role = group[0]!.role;
    if (role === 'assistant' && lastQuestions.length > 0) {
      // A reply answers the questions of the prompt right before it: by its closest claim.
      for (const qid of lastQuestions) {
        const qRel = candidates.load([qid])[0];
        if (!qRel || qRel.answered) continue;
        const best = [...inserted].sort(
          (a, b) =>
            Number(ANSWER_INTENTS.has(b.intent)) - Number(ANSWER_INTENTS.has(a.intent)) ||
            similarity(qRel, b) - similarity(qRel, a),
        )[0];
        if (best && best.intent !== 'question') relate(best.id, qRel, 'answers', best.createdAt);
      }
    }
    if (role === 'user')
      lastQuestions = inserted.filter((i) => i.intent === 'question').map((i) => i.id);
    else lastQuestions = [];
  }

  const topics = carry.topics;
  if (topics.topic) topics.topic.id = real(topics.topic.id);
  if (topics.sub) topics.sub.id = real(topics.sub.id);
  carry.openQuestions = lastQuestions;
  return { spans: created.length, ideas: stored, relations };
}
