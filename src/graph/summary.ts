/**
 * Spans named and summarised without a model: the name from the span's top keywords (entities
 * first), the summary extractive, in seed 004 section 4.4's parts: the main focus, decisions made,
 * conclusions reached and questions still open.
 */
import type { EntityType, Intent } from '../db/graph/graph.js';
import { queryWords } from '../memory/index.js';

export interface SpanIdea {
  content: string;
  intent: Intent;
  answered: boolean | null;
  entities: { name: string; type: EntityType }[];
}

/** Words that carry no topic even though they are not stop words. */
const FILLER = new Set(
  (
    'just really think know like want make sure need going get got use used using yes yeah okay ' +
    'lot lots thing things something anything way well good great much many one two also now ' +
    'let lets see look looks sounds sound right still even though would could should might ' +
    'will can time day today said says say actually maybe probably pretty kind sort bit little ' +
    'new first last next other another every same different done doing does did'
  ).split(' '),
);

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** The span's top terms: entity names count double, then frequent content words. */
export function topKeywords(ideas: readonly SpanIdea[], n = 3): string[] {
  const score = new Map<string, { term: string; n: number; first: number }>();
  let order = 0;
  const bump = (term: string, weight: number) => {
    const key = term.toLowerCase();
    const entry = score.get(key) ?? { term, n: 0, first: order++ };
    entry.n += weight;
    score.set(key, entry);
  };
  for (const idea of ideas) {
    const named = new Set<string>();
    for (const e of idea.entities) {
      if (e.type === 'file' || e.type === 'person') continue;
      bump(e.name, 2);
      for (const w of queryWords(e.name)) named.add(w);
    }
    for (const w of queryWords(idea.content, 64)) {
      if (w.length < 3 || FILLER.has(w) || named.has(w) || /^\d+$/.test(w)) continue;
      bump(w, 1);
    }
  }
  return [...score.values()]
    .sort((a, b) => b.n - a.n || a.first - b.first)
    .slice(0, n)
    .map((e) => e.term);
}

/** "Backup window, restic, PostgreSQL": the top keywords, or a fallback. */
export function keywordName(ideas: readonly SpanIdea[], fallback = 'Conversation'): string {
  const terms = topKeywords(ideas);
  if (terms.length === 0) return fallback;
  const name = terms.join(', ');
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** Extractive summary: focus, decisions, conclusions, open questions (each clipped). */
export function extractiveSummary(name: string, ideas: readonly SpanIdea[]): string {
  const pick = (intents: readonly Intent[], max: number, filter?: (i: SpanIdea) => boolean) =>
    ideas
      .filter((i) => intents.includes(i.intent) && (filter ? filter(i) : true))
      .slice(-max)
      .map((i) => clip(i.content, 140));
  const parts: string[] = [`Focus: ${name}.`];
  const decisions = pick(['decision'], 3);
  const conclusions = pick(['conclusion', 'solution'], 2);
  const open = pick(['question'], 2, (i) => i.answered !== true);
  const problems = pick(['problem'], 1);
  if (decisions.length > 0) parts.push(`Decided: ${decisions.join(' ')}`);
  if (conclusions.length > 0) parts.push(`Concluded: ${conclusions.join(' ')}`);
  if (problems.length > 0 && conclusions.length === 0) parts.push(`Problem: ${problems.join(' ')}`);
  if (open.length > 0) parts.push(`Open: ${open.join(' ')}`);
  if (parts.length === 1) {
    const first = ideas.find((i) => i.intent === 'context') ?? ideas[0];
    if (first) parts.push(clip(first.content, 200));
  }
  return parts.join(' ');
}
