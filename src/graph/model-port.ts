/**
 * What the graph asks of a model (seed 004's "use the model"): confirm and name a topic shift,
 * summarise a span, extract ideas as JSON, and write a hypothetical answer for a vague query
 * (HyDE). The offline implementation answers every job with the rules (the distance alone
 * decides a shift, keyword names, extractive summaries, the rule-based extractor, no HyDE); the
 * gateway adapter (gateway-model.ts) runs them through the model gateway and falls back to the
 * rules whenever a job fails, so indexing never stops for a model.
 */
import { ENTITY_TYPES, type EntityType, type Intent, INTENTS } from '../db/graph/graph.js';
import { entitiesIn, type EntityMention, technologyNamed } from './entities.js';
import { mayNameEntity } from './not-entities.js';
import { cueOf, type ExtractedIdea, type ExtractHints, extractIdeas } from './extract.js';
import { extractiveSummary, keywordName, type SpanIdea } from './summary.js';
import type { Turn } from './turns.js';

export interface ShiftVerdict {
  shift: boolean;
  /** The new span's name, when the model gave one. */
  name: string | null;
}

export interface GraphModel {
  /** `offline`, or the gateway's backend and model. */
  readonly name: string;
  readonly offline: boolean;
  /** A candidate shift (flagged by distance): is it one, and what is the new span about? */
  confirmShift(before: readonly string[], after: string): Promise<ShiftVerdict>;
  nameSpan(ideas: readonly SpanIdea[]): Promise<string>;
  summariseSpan(name: string, ideas: readonly SpanIdea[]): Promise<string>;
  /** Ideas of these turns (user prompts and the model's text only). */
  extractIdeas(turns: readonly Turn[], hints: ExtractHints): Promise<ExtractedIdea[]>;
  /** A hypothetical answer to embed instead of a vague query; null when not available. */
  hyde(query: string): Promise<string | null>;
}

export function offlineModel(): GraphModel {
  return {
    name: 'offline',
    offline: true,
    confirmShift: () => Promise.resolve({ shift: true, name: null }),
    nameSpan: (ideas) => Promise.resolve(keywordName(ideas)),
    summariseSpan: (name, ideas) => Promise.resolve(extractiveSummary(name, ideas)),
    extractIdeas: (turns, hints) => Promise.resolve(turns.flatMap((t) => extractIdeas(t, hints))),
    hyde: () => Promise.resolve(null),
  };
}

/** The JSON schema of the extraction job's answer. */
export const EXTRACTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['ideas'],
  properties: {
    ideas: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['line', 'content', 'intent', 'confidence', 'entities'],
        properties: {
          line: { type: 'integer', description: 'the line number of the turn it comes from' },
          content: { type: 'string', minLength: 1, maxLength: 600 },
          intent: { type: 'string', enum: [...INTENTS] },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          entities: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'type'],
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 120 },
                type: { type: 'string', enum: [...ENTITY_TYPES] },
              },
            },
          },
        },
      },
    },
  },
} as const;

/** The JSON schema of the shift confirmation job's answer. */
export const SHIFT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['shift', 'name'],
  properties: {
    shift: { type: 'boolean' },
    name: { type: 'string', maxLength: 80 },
  },
} as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A technology's spelling folded to its one name; other entities as the model wrote them. */
function foldEntity(name: string, type: EntityType): EntityMention {
  const trimmed = name.trim();
  if (type === 'technology')
    return { name: technologyNamed(trimmed) ?? trimmed, type, alias: trimmed };
  return { name: trimmed, type, alias: trimmed };
}

/**
 * A model's extraction answer checked against the turns it was given: ideas must come from one of
 * their lines (never from elsewhere), with a known intent and a confidence in 0..1. Returns null
 * when the answer is not usable at all (the caller then uses the rules).
 */
export function parseExtraction(
  answer: unknown,
  turns: readonly Turn[],
  hints: ExtractHints,
): ExtractedIdea[] | null {
  if (!isRecord(answer) || !Array.isArray(answer.ideas)) return null;
  const byLine = new Map(turns.filter((t) => t.role !== 'tool').map((t) => [t.line, t]));
  const out: ExtractedIdea[] = [];
  for (const item of answer.ideas) {
    if (!isRecord(item)) continue;
    const turn = typeof item.line === 'number' ? byLine.get(item.line) : undefined;
    const content = typeof item.content === 'string' ? item.content.trim() : '';
    const intent = item.intent as Intent;
    if (!turn || content.length === 0 || !INTENTS.includes(intent)) continue;
    const confidence =
      typeof item.confidence === 'number' && Number.isFinite(item.confidence)
        ? Math.min(1, Math.max(0, item.confidence))
        : 0.5;
    const named = Array.isArray(item.entities)
      ? item.entities
          .filter(
            (e): e is { name: string; type: EntityType } =>
              isRecord(e) &&
              typeof e.name === 'string' &&
              e.name.trim().length > 0 &&
              ENTITY_TYPES.includes(e.type as EntityType),
          )
          .map((e) => foldEntity(e.name, e.type))
          .filter((e) => mayNameEntity(e.name, e.type))
      : [];
    out.push({
      line: turn.line,
      role: turn.role as 'user' | 'assistant',
      content: content.slice(0, 600),
      intent,
      confidence: Math.round(confidence * 100) / 100,
      // The rules add what they recognise (files, the catalog) to what the model named.
      entities: dedupeEntities([
        ...named,
        ...entitiesIn(content, { project: hints.project ?? null }),
      ]),
      at: turn.at,
      cue: cueOf(content),
    });
  }
  return out;
}

function dedupeEntities(list: EntityMention[]): EntityMention[] {
  const seen = new Map<string, EntityMention>();
  for (const e of list) {
    const key = `${e.type}:${e.name.toLowerCase()}`;
    if (!seen.has(key)) seen.set(key, e);
  }
  return [...seen.values()];
}
