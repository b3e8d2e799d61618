/**
 * The memory graph's rows (migration 0010) as the stores give them: spans, ideas, entities,
 * relations, and the counts of the Graph page.
 */

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
