/**
 * Read models of the graph for the CLI and the dashboard: a session's topic tree with its ideas,
 * one idea with everything it is related to, one entity with every idea that names it.
 */
import type {
  EntityRow,
  GraphSessionRow,
  GraphStores,
  IdeaRow,
  Intent,
  RelationRow,
  SpanRow,
} from '../db/graph/graph.js';
import { AppError } from '../errors.js';
import { shownEntities } from './entity-evidence.js';
import { type IdeaRepeat, onceEach, type SeenIdea } from './repeats.js';

export interface TopicNode {
  span: SpanRow;
  ideas: IdeaRow[];
  children: TopicNode[];
  /** Ideas in this span and its sub-spans. */
  ideaCount: number;
}

export interface SessionView {
  session: GraphSessionRow;
  topics: TopicNode[];
}

export interface RelatedIdea {
  relation: RelationRow;
  /** `out`: this idea -> the other (this one supersedes it); `in`: the other -> this one. */
  direction: 'out' | 'in';
  other: IdeaRow;
}

export interface IdeaView {
  idea: IdeaRow;
  span: SpanRow | null;
  topic: SpanRow | null;
  session: GraphSessionRow | null;
  entities: EntityRow[];
  related: RelatedIdea[];
  /** How often its text was said, first and last. */
  seen: IdeaRepeat;
}

export interface EntityView {
  entity: EntityRow;
  aliases: string[];
  ideas: IdeaRow[];
  /** The ideas once each, newest first, with how often each was said. */
  seen: SeenIdea[];
}

export function createGraphViews(stores: GraphStores) {
  const { rows, sources } = stores;
  return {
    /** A session by its label or a unique prefix of it (a CLI session id may be shortened). */
    async resolveSession(label: string): Promise<GraphSessionRow> {
      // The exact label and the prefix side by side: one round trip either way.
      const [exact, prefixed] = await Promise.all([
        sources.session(label),
        sources.sessionsLike(label, 50),
      ]);
      if (exact) return exact;
      // A prefix of a session also prefixes its subagents' labels (`<session>/agent-<id>`).
      const like = prefixed.filter((s) => label.includes('/') || !s.session.includes('/'));
      if (like.length === 1) return like[0]!;
      throw new AppError(
        'not_found',
        like.length === 0
          ? `no indexed session "${label}" (graph topics lists them)`
          : `"${label}" names more than one session; give more of it`,
        { data: { field: 'session' } },
      );
    },

    async session(label: string, intents?: readonly Intent[]): Promise<SessionView> {
      return this.sessionOf(await this.resolveSession(label), intents);
    },

    /** The topic tree of a session already read. */
    async sessionOf(session: GraphSessionRow, intents?: readonly Intent[]): Promise<SessionView> {
      const [spans, ideas] = await Promise.all([
        rows.spansOfSession(session.session),
        rows.ideasOfSession(session.session, intents),
      ]);
      const bySpan = new Map<number, IdeaRow[]>();
      for (const i of ideas) {
        if (i.spanId === null) continue;
        bySpan.set(i.spanId, [...(bySpan.get(i.spanId) ?? []), i]);
      }
      const nodes = new Map<number, TopicNode>(
        spans.map((s) => [
          s.id,
          { span: s, ideas: bySpan.get(s.id) ?? [], children: [], ideaCount: 0 },
        ]),
      );
      const roots: TopicNode[] = [];
      for (const node of nodes.values()) {
        const parent = node.span.parentId === null ? null : nodes.get(node.span.parentId);
        if (parent) parent.children.push(node);
        else roots.push(node);
      }
      const count = (n: TopicNode): number =>
        (n.ideaCount = n.ideas.length + n.children.reduce((k, c) => k + count(c), 0));
      roots.forEach(count);
      return { session, topics: roots };
    },

    async idea(id: number): Promise<IdeaView> {
      const idea = await rows.idea(id);
      if (!idea)
        throw new AppError('not_found', `no idea with id ${id}`, { data: { field: 'id' } });
      const [span, relations, session, named, [seen]] = await Promise.all([
        idea.spanId === null ? null : rows.span(idea.spanId),
        rows.relationsOf([id]),
        sources.session(idea.session),
        rows.entitiesOfAwaited([id]),
        onceEach(stores, [idea]),
      ]);
      const [others, topic, entities] = await Promise.all([
        rows
          .ideasAwaited(relations.map((r) => (r.fromId === id ? r.toId : r.fromId)))
          .then((list) => new Map(list.map((i) => [i.id, i]))),
        span?.parentId ? rows.span(span.parentId) : null,
        shownEntities(stores, named.get(id) ?? []),
      ]);
      return {
        idea,
        span,
        topic,
        session,
        entities,
        related: relations
          .map((r) => ({
            relation: r,
            direction: (r.fromId === id ? 'out' : 'in') as 'out' | 'in',
            other: others.get(r.fromId === id ? r.toId : r.fromId)!,
          }))
          .filter((r) => r.other !== undefined),
        seen: seen!.seen,
      };
    },

    async entity(id: number): Promise<EntityView> {
      const [entity, ideas, aliases] = await Promise.all([
        rows.entity(id),
        rows.ideasOfEntity(id),
        rows.aliasesOf(id),
      ]);
      if (!entity)
        throw new AppError('not_found', `no entity with id ${id}`, { data: { field: 'id' } });
      return { entity, aliases, ideas, seen: await onceEach(stores, ideas) };
    },
  };
}

export type GraphViews = ReturnType<typeof createGraphViews>;
