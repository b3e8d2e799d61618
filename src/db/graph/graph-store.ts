/**
 * The memory graph's rows (migration 0010): spans (a tree per session), ideas, entities with the
 * spellings that name them, and relations between ideas. Full text and vectors are in
 * graph-search.ts; what was read from which file is in graph-sources.ts.
 */
import { type Db, statementCache } from '../open.js';

export const INTENTS = [
  'decision',
  'conclusion',
  'question',
  'problem',
  'solution',
  'todo',
  'context',
] as const;
export type Intent = (typeof INTENTS)[number];

export const ENTITY_TYPES = ['project', 'technology', 'concept', 'person', 'file'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const RELATION_TYPES = [
  'supersedes',
  'builds_on',
  'contradicts',
  'answers',
  'relates_to',
] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

export interface SpanRow {
  id: number;
  session: string;
  parentId: number | null;
  name: string;
  summary: string | null;
  sourceFile: string;
  startLine: number;
  endLine: number | null;
  depth: number;
  createdAt: number;
  endedAt: number | null;
}

export type NewSpan = Omit<SpanRow, 'id'>;

export interface IdeaRow {
  id: number;
  spanId: number | null;
  session: string;
  content: string;
  intent: Intent;
  confidence: number;
  /** For questions: answered or still open; null for every other intent. */
  answered: boolean | null;
  role: 'user' | 'assistant';
  sourceFile: string;
  sourceLine: number;
  createdAt: number;
}

export type NewIdea = Omit<IdeaRow, 'id'>;

export interface EntityRow {
  id: number;
  name: string;
  type: EntityType;
}

export interface RelationRow {
  id: number;
  fromId: number;
  toId: number;
  type: RelationType;
  createdAt: number;
}

export interface GraphCounts {
  sessions: number;
  files: number;
  spans: number;
  topics: number;
  ideas: number;
  entities: number;
  relations: number;
  byIntent: Record<Intent, number>;
  byRelation: Record<RelationType, number>;
  openQuestions: number;
  lastIndexed: number | null;
}

const SPAN_COLUMNS = `id, session, parent_id AS parentId, name, summary, source_file AS sourceFile,
  start_line AS startLine, end_line AS endLine, depth, created_at AS createdAt, ended_at AS endedAt`;
const IDEA_COLUMNS = `i.id, i.span_id AS spanId, i.session, i.content, i.intent, i.confidence,
  i.answered, i.role, i.source_file AS sourceFile, i.source_line AS sourceLine,
  i.created_at AS createdAt`;

type IdeaRecord = Omit<IdeaRow, 'answered'> & { answered: number | null };

function toIdea(r: IdeaRecord): IdeaRow {
  return { ...r, answered: r.answered === null ? null : r.answered === 1 };
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(',');
}

/** Runs `query` over ids in chunks SQLite accepts. */
function chunked<T>(ids: readonly number[], query: (chunk: number[]) => T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += 500) out.push(...query(ids.slice(i, i + 500)));
  return out;
}

export function createGraphStore(db: Db) {
  const cached = statementCache(db);
  const insertSpan = db.prepare(`INSERT INTO spans (session, parent_id, name, summary, source_file,
      start_line, end_line, depth, created_at, ended_at)
    VALUES (@session, @parentId, @name, @summary, @sourceFile, @startLine, @endLine, @depth,
      @createdAt, @endedAt)`);
  const insertIdea = db.prepare(`INSERT INTO ideas (span_id, session, content, intent, confidence,
      answered, role, source_file, source_line, created_at)
    VALUES (@spanId, @session, @content, @intent, @confidence, @answered, @role, @sourceFile,
      @sourceLine, @createdAt)`);
  const insertEntity = db.prepare('INSERT OR IGNORE INTO entities (name, type) VALUES (?, ?)');
  const entityByName = db.prepare(
    'SELECT id, name, type FROM entities WHERE name = ? AND type = ?',
  );
  const insertAlias = db.prepare(
    'INSERT OR IGNORE INTO entity_aliases (alias, entity_id) VALUES (?, ?)',
  );
  const link = db.prepare('INSERT OR IGNORE INTO idea_entities (idea_id, entity_id) VALUES (?, ?)');
  const insertRelation = db.prepare(`INSERT OR IGNORE INTO relations (from_id, to_id,
    relation_type, created_at) VALUES (?, ?, ?, ?)`);

  const store = {
    insertSpan(s: NewSpan): number {
      return Number(insertSpan.run(s).lastInsertRowid);
    },

    updateSpan(
      id: number,
      patch: Partial<Pick<SpanRow, 'name' | 'summary' | 'endLine' | 'endedAt' | 'parentId'>>,
    ): void {
      const sets: string[] = [];
      const params: (string | number | null)[] = [];
      const column = {
        name: 'name',
        summary: 'summary',
        endLine: 'end_line',
        endedAt: 'ended_at',
        parentId: 'parent_id',
      } as const;
      for (const key of Object.keys(column) as (keyof typeof column)[]) {
        if (patch[key] === undefined) continue;
        sets.push(`${column[key]} = ?`);
        params.push(patch[key]);
      }
      if (sets.length === 0) return;
      cached(`UPDATE spans SET ${sets.join(', ')} WHERE id = ?`).run(...params, id);
    },

    span(id: number): SpanRow | null {
      return (
        (cached(`SELECT ${SPAN_COLUMNS} FROM spans WHERE id = ?`).get(id) as SpanRow | undefined) ??
        null
      );
    },

    spans(ids: readonly number[]): SpanRow[] {
      return chunked(
        ids,
        (chunk) =>
          db
            .prepare(
              `SELECT ${SPAN_COLUMNS} FROM spans WHERE id IN (${placeholders(chunk.length)})`,
            )
            .all(...chunk) as SpanRow[],
      );
    },

    /** A session's spans in the order they were said (topics and their sub-spans). */
    spansOfSession(session: string): SpanRow[] {
      return cached(
        `SELECT ${SPAN_COLUMNS} FROM spans WHERE session = ? ORDER BY start_line, depth, id`,
      ).all(session) as SpanRow[];
    },

    /** Ideas of a span move to another (a topic split into sub-spans), from a line on. */
    moveIdeas(fromSpanId: number, toSpanId: number, fromLine = 0): void {
      cached('UPDATE ideas SET span_id = ? WHERE span_id = ? AND source_line >= ?').run(
        toSpanId,
        fromSpanId,
        fromLine,
      );
    },

    insertIdea(i: NewIdea): number {
      return Number(
        insertIdea.run({ ...i, answered: i.answered === null ? null : i.answered ? 1 : 0 })
          .lastInsertRowid,
      );
    },

    setAnswered(id: number, answered: boolean): void {
      cached("UPDATE ideas SET answered = ? WHERE id = ? AND intent = 'question'").run(
        answered ? 1 : 0,
        id,
      );
    },

    idea(id: number): IdeaRow | null {
      const row = cached(`SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.id = ?`).get(id) as
        IdeaRecord | undefined;
      return row ? toIdea(row) : null;
    },

    ideas(ids: readonly number[]): IdeaRow[] {
      return chunked(ids, (chunk) =>
        (
          cached(
            `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.id IN (${placeholders(chunk.length)})`,
          ).all(...chunk) as IdeaRecord[]
        ).map(toIdea),
      );
    },

    /** Ideas of these spans in the order they were said, optionally of some intents only. */
    ideasOfSpans(spanIds: readonly number[], intents?: readonly Intent[]): IdeaRow[] {
      if (spanIds.length === 0) return [];
      const byIntent = intents && intents.length > 0;
      return chunked(spanIds, (chunk) =>
        (
          db
            .prepare(
              `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.span_id IN (${placeholders(chunk.length)})
               ${byIntent ? `AND i.intent IN (${placeholders(intents.length)})` : ''}
               ORDER BY i.source_file, i.source_line, i.id`,
            )
            .all(...chunk, ...(byIntent ? intents : [])) as IdeaRecord[]
        ).map(toIdea),
      ).sort((a, b) => a.createdAt - b.createdAt || a.sourceLine - b.sourceLine || a.id - b.id);
    },

    /** The latest ideas of a session, newest first (relation detection looks back over these). */
    recentIdeas(session: string, limit: number): IdeaRow[] {
      return (
        cached(
          `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = ? ORDER BY i.source_line DESC, i.id DESC LIMIT ?`,
        ).all(session, limit) as IdeaRecord[]
      ).map(toIdea);
    },

    /** Ids of the latest ideas of a session, newest first (as `recentIdeas` orders them). */
    recentIdeaIds(session: string, limit: number): number[] {
      return (
        cached(
          'SELECT id FROM ideas WHERE session = ? ORDER BY source_line DESC, id DESC LIMIT ?',
        ).all(session, limit) as { id: number }[]
      ).map((r) => r.id);
    },

    /**
     * The ideas of the turn said right after a line of a session, within the same span (a turn
     * across a topic shift is not its reply).
     */
    turnAfter(session: string, line: number, spanId: number | null): IdeaRow[] {
      return (
        cached(
          `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = @session AND i.span_id IS @spanId
             AND i.source_line = (SELECT MIN(source_line) FROM ideas
               WHERE session = @session AND source_line > @line)
           ORDER BY i.id`,
        ).all({ session, line, spanId }) as IdeaRecord[]
      ).map(toIdea);
    },

    /** Ideas of a session, in order, optionally of some intents only (session pages). */
    ideasOfSession(session: string, intents?: readonly Intent[]): IdeaRow[] {
      const byIntent = intents && intents.length > 0;
      return (
        db
          .prepare(
            `SELECT ${IDEA_COLUMNS} FROM ideas i WHERE i.session = ?
             ${byIntent ? `AND i.intent IN (${placeholders(intents.length)})` : ''}
             ORDER BY i.source_line, i.id`,
          )
          .all(session, ...(byIntent ? intents : [])) as IdeaRecord[]
      ).map(toIdea);
    },

    /** The entity with this name and type, created if new; `alias` is the spelling seen. */
    entityId(name: string, type: EntityType, alias: string): number {
      insertEntity.run(name, type);
      const row = entityByName.get(name, type) as EntityRow;
      insertAlias.run(alias, row.id);
      if (alias.toLowerCase() !== name.toLowerCase()) insertAlias.run(name, row.id);
      return row.id;
    },

    entity(id: number): EntityRow | null {
      return (
        (cached('SELECT id, name, type FROM entities WHERE id = ?').get(id) as
          EntityRow | undefined) ?? null
      );
    },

    /** Entities named or spelled like this (case folded). */
    entitiesNamed(spelling: string): EntityRow[] {
      return cached(`SELECT DISTINCT e.id, e.name, e.type FROM entities e
        LEFT JOIN entity_aliases a ON a.entity_id = e.id
        WHERE e.name = ? OR a.alias = ? ORDER BY e.id`).all(spelling, spelling) as EntityRow[];
    },

    aliasesOf(entityId: number): string[] {
      return (
        cached('SELECT alias FROM entity_aliases WHERE entity_id = ? ORDER BY alias').all(
          entityId,
        ) as { alias: string }[]
      ).map((r) => r.alias);
    },

    linkEntities(ideaId: number, entityIds: readonly number[]): void {
      for (const id of entityIds) link.run(ideaId, id);
    },

    entitiesOf(ideaIds: readonly number[]): Map<number, EntityRow[]> {
      const out = new Map<number, EntityRow[]>();
      const rows = chunked(
        ideaIds,
        (chunk) =>
          cached(
            `SELECT l.idea_id AS ideaId, e.id, e.name, e.type FROM idea_entities l
             JOIN entities e ON e.id = l.entity_id WHERE l.idea_id IN (${placeholders(chunk.length)})
             ORDER BY e.type, e.name`,
          ).all(...chunk) as (EntityRow & { ideaId: number })[],
      );
      for (const r of rows) {
        const list = out.get(r.ideaId) ?? [];
        list.push({ id: r.id, name: r.name, type: r.type });
        out.set(r.ideaId, list);
      }
      return out;
    },

    /** Every idea that names an entity, newest first. */
    ideasOfEntity(entityId: number, limit = 500): IdeaRow[] {
      return (
        cached(`SELECT ${IDEA_COLUMNS} FROM idea_entities l JOIN ideas i ON i.id = l.idea_id
          WHERE l.entity_id = ? ORDER BY i.created_at DESC, i.id DESC LIMIT ?`).all(
          entityId,
          limit,
        ) as IdeaRecord[]
      ).map(toIdea);
    },

    /** How many ideas name each of these entities. */
    ideaCounts(entityIds: readonly number[]): Map<number, number> {
      const rows = chunked(
        entityIds,
        (chunk) =>
          db
            .prepare(
              `SELECT entity_id AS id, COUNT(*) AS n FROM idea_entities
               WHERE entity_id IN (${placeholders(chunk.length)}) GROUP BY entity_id`,
            )
            .all(...chunk) as { id: number; n: number }[],
      );
      return new Map(rows.map((r) => [r.id, r.n]));
    },

    /** Entities with how many ideas name them, most named first. */
    topEntities(limit = 50): (EntityRow & { ideas: number })[] {
      return cached(`SELECT e.id, e.name, e.type, COUNT(l.idea_id) AS ideas FROM entities e
        JOIN idea_entities l ON l.entity_id = e.id GROUP BY e.id
        ORDER BY ideas DESC, e.name LIMIT ?`).all(limit) as (EntityRow & { ideas: number })[];
    },

    /** True when the relation is new. */
    addRelation(fromId: number, toId: number, type: RelationType, at: number): boolean {
      if (fromId === toId) return false;
      return insertRelation.run(fromId, toId, type, at).changes > 0;
    },

    /** Relations with either end among these ideas. */
    relationsOf(ideaIds: readonly number[]): RelationRow[] {
      const seen = new Map<number, RelationRow>();
      for (const column of ['from_id', 'to_id']) {
        for (const r of chunked(
          ideaIds,
          (chunk) =>
            db
              .prepare(
                `SELECT id, from_id AS fromId, to_id AS toId, relation_type AS type,
                   created_at AS createdAt FROM relations WHERE ${column} IN (${placeholders(chunk.length)})`,
              )
              .all(...chunk) as RelationRow[],
        ))
          seen.set(r.id, r);
      }
      return [...seen.values()].sort((a, b) => a.id - b.id);
    },

    /** The latest relations of a kind (the Graph page's chains), newest first. */
    recentRelations(type: RelationType, limit = 20): RelationRow[] {
      return cached(`SELECT id, from_id AS fromId, to_id AS toId, relation_type AS type,
        created_at AS createdAt FROM relations WHERE relation_type = ?
        ORDER BY created_at DESC, id DESC LIMIT ?`).all(type, limit) as RelationRow[];
    },

    /** Removes everything read from a file (it is read again from the start). */
    deleteFile(sourceFile: string): { spans: number; ideas: number } {
      const ideas = cached('DELETE FROM ideas WHERE source_file = ?').run(sourceFile).changes;
      const spans = cached('DELETE FROM spans WHERE source_file = ?').run(sourceFile).changes;
      return { spans, ideas };
    },

    counts(): GraphCounts {
      const one = (sql: string) => (cached(sql).get() as { n: number | null }).n;
      const byIntent = Object.fromEntries(INTENTS.map((i) => [i, 0])) as Record<Intent, number>;
      for (const r of cached('SELECT intent, COUNT(*) AS n FROM ideas GROUP BY intent').all() as {
        intent: Intent;
        n: number;
      }[])
        byIntent[r.intent] = r.n;
      const byRelation = Object.fromEntries(RELATION_TYPES.map((t) => [t, 0])) as Record<
        RelationType,
        number
      >;
      for (const r of cached(
        'SELECT relation_type AS type, COUNT(*) AS n FROM relations GROUP BY relation_type',
      ).all() as { type: RelationType; n: number }[])
        byRelation[r.type] = r.n;
      return {
        sessions: one('SELECT COUNT(*) AS n FROM graph_sessions') ?? 0,
        files: one('SELECT COUNT(*) AS n FROM index_state') ?? 0,
        spans: one('SELECT COUNT(*) AS n FROM spans') ?? 0,
        topics: one('SELECT COUNT(*) AS n FROM spans WHERE depth = 0') ?? 0,
        ideas: one('SELECT COUNT(*) AS n FROM ideas') ?? 0,
        entities: one('SELECT COUNT(*) AS n FROM entities') ?? 0,
        relations: one('SELECT COUNT(*) AS n FROM relations') ?? 0,
        byIntent,
        byRelation,
        openQuestions:
          one("SELECT COUNT(*) AS n FROM ideas WHERE intent = 'question' AND answered = 0") ?? 0,
        lastIndexed: one('SELECT max(last_indexed) AS n FROM index_state'),
      };
    },
  };
  return store;
}

export type GraphStore = ReturnType<typeof createGraphStore>;
