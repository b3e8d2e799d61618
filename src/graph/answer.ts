/**
 * The /remember answer (seed 004 section 5.2 step 5): the ranked ideas grouped by their topic (with
 * its summary), evolution chains in order ("decided X on the 3rd, superseded by Y on the 9th"),
 * within a token budget: an idea that does not fit is left out and smaller ones may still come
 * in, and the whole text never exceeds the budget (tokens are characters / 4, as everywhere).
 */
import type { GraphSessionRow, GraphStores, IdeaRow, SpanRow } from '../db/graph/graph.js';
import { estimateTokens } from '../memory/index.js';
import { shownEntities } from './entity-evidence.js';
import type { RankedIdea, Via } from './ranked-idea.js';
import { type IdeaRepeat, onceEach } from './repeats.js';

export interface ChainLink {
  id: number;
  content: string;
  createdAt: number;
}

export interface AnswerIdea {
  idea: IdeaRow;
  score: number;
  via: Via | null;
  entities: string[];
  /** The supersession chain it belongs to, oldest first; null when it has none. */
  chain: ChainLink[] | null;
  /** How often its text was said (the answer shows a repeated idea once), first and last. */
  seen: IdeaRepeat;
}

export interface AnswerGroup {
  span: SpanRow | null;
  /** The topic of a sub-span (null when the span is a topic). */
  topic: SpanRow | null;
  session: GraphSessionRow | null;
  ideas: AnswerIdea[];
}

const MAX_CHAIN = 6;

export function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** "session 9c42ba52", "subagent of 9c42ba52", "watchkeeper session #12". */
export function sessionLabel(s: GraphSessionRow | null, session: string): string {
  if (s?.kind === 'watchkeeper' && s.watchkeeperSessionId !== null) {
    return `watchkeeper session #${s.watchkeeperSessionId}`;
  }
  if (s?.kind === 'subagent') return `subagent of ${(s.parentSession ?? session).slice(0, 8)}`;
  return `session ${session.slice(0, 8)}`;
}

const RELATION_WORDS: Record<Via['relation'], [string, string]> = {
  supersedes: ['supersedes', 'superseded by'],
  builds_on: ['builds on', 'extended by'],
  answers: ['answers', 'answered by'],
  contradicts: ['contradicts', 'contradicted by'],
  relates_to: ['relates to', 'related to'],
  reply: ['replies to', 'replied to by'],
};

/** "answered by #4": how an idea reached by graph expansion relates to the one it came from. */
export function viaText(via: Via): string {
  const [out, back] = RELATION_WORDS[via.relation];
  return `${via.direction === 'out' ? out : back} #${via.from}`;
}

function confidenceWord(c: number): string {
  return c >= 0.8 ? 'firm' : c <= 0.4 ? 'tentative' : '';
}

function ideaLine(a: AnswerIdea): string {
  const i = a.idea;
  const word = confidenceWord(i.confidence);
  const state = i.intent === 'question' ? (i.answered ? ', answered' : ', open') : '';
  const via = a.via ? `, ${viaText(a.via)}` : '';
  return `- ${i.intent}${word ? ` (${word})` : ''}: ${clip(i.content, 300)} [#${i.id}, ${day(i.createdAt)}${state}${via}${saidText(a.seen)}]`;
}

/** ", said 7 times in 7 conversations 2026-03-01..2026-03-07" for a repeated idea. */
function saidText(seen: IdeaRepeat): string {
  if (seen.count <= 1) return '';
  const where = seen.sessions > 1 ? ` in ${seen.sessions} conversations` : '';
  const first = day(seen.firstAt);
  const last = day(seen.lastAt);
  return `, said ${seen.count} times${where} ${first === last ? first : `${first}..${last}`}`;
}

function chainLine(chain: ChainLink[]): string {
  const [first, ...rest] = chain;
  return `  evolution: ${day(first!.createdAt)} #${first!.id} "${clip(first!.content, 70)}"${rest
    .map((l) => ` -> superseded ${day(l.createdAt)} by #${l.id} "${clip(l.content, 70)}"`)
    .join('')}`;
}

/**
 * The supersession chains through these ideas, oldest first (none for an idea in no chain):
 * the relations read a step at a time for every idea at once, MAX_CHAIN steps at most each way,
 * then the ideas of every chain in one read.
 */
async function chainsOf(ids: readonly number[], stores: GraphStores) {
  const { rows } = stores;
  // Of each idea looked at: what its first supersedes relation (by id) points to, each way.
  const olderOf = new Map<number, number | null>();
  const newerOf = new Map<number, number | null>();
  let frontier = [...new Set(ids)];
  for (let step = 0; step < MAX_CHAIN && frontier.length > 0; step += 1) {
    const relations = (await rows.relationsOf(frontier)).filter((r) => r.type === 'supersedes');
    for (const id of frontier) {
      olderOf.set(id, relations.find((r) => r.fromId === id)?.toId ?? null);
      newerOf.set(id, relations.find((r) => r.toId === id)?.fromId ?? null);
    }
    frontier = [
      ...new Set(
        frontier.flatMap((id) =>
          [olderOf.get(id), newerOf.get(id)].filter((x): x is number => typeof x === 'number'),
        ),
      ),
    ].filter((id) => !olderOf.has(id));
  }
  const walks = new Map<number, number[]>();
  for (const id of new Set(ids)) {
    const older: number[] = [];
    const newer: number[] = [];
    let cursor = id;
    for (let i = 0; i < MAX_CHAIN; i += 1) {
      const to = olderOf.get(cursor) ?? null;
      if (to === null || older.includes(to)) break;
      older.unshift(to);
      cursor = to;
    }
    cursor = id;
    for (let i = 0; i < MAX_CHAIN; i += 1) {
      const from = newerOf.get(cursor) ?? null;
      if (from === null || newer.includes(from)) break;
      newer.push(from);
      cursor = from;
    }
    if (older.length > 0 || newer.length > 0) walks.set(id, [...older, id, ...newer]);
  }
  const byId = new Map(
    (await rows.ideasAwaited([...new Set([...walks.values()].flat())])).map((i) => [i.id, i]),
  );
  const chains = new Map<number, ChainLink[]>();
  for (const [id, walk] of walks) {
    chains.set(
      id,
      walk
        .map((x) => byId.get(x))
        .filter((i): i is IdeaRow => i !== undefined)
        .map((i) => ({ id: i.id, content: i.content, createdAt: i.createdAt })),
    );
  }
  return chains;
}

function groupHeader(g: AnswerGroup): string[] {
  const span = g.span;
  if (!span) return ['## (no topic)'];
  const name = g.topic ? `${g.topic.name} > ${span.name}` : span.name;
  const when =
    span.endedAt && day(span.endedAt) !== day(span.createdAt)
      ? `${day(span.createdAt)}..${day(span.endedAt)}`
      : day(span.createdAt);
  const lines = [`## ${clip(name, 100)} (${sessionLabel(g.session, span.session)}, ${when})`];
  if (span.summary) lines.push(`  ${clip(span.summary, 240)}`);
  return lines;
}

const cost = (lines: readonly string[]) => lines.reduce((n, l) => n + estimateTokens(`${l}\n`), 0);

/**
 * What the answer may show of the ranked ideas, read before it is assembled: their spans and
 * topics, conversations, repeats and chains, a few statements for them all.
 */
async function around(ranked: readonly RankedIdea[], stores: GraphStores) {
  const { rows, sources } = stores;
  const ideas = ranked.map((r) => r.idea);
  const [spanRows, sessions, seen, chains] = await Promise.all([
    rows.spans(ideas.flatMap((i) => (i.spanId === null ? [] : [i.spanId]))),
    sources.sessions(ideas.map((i) => i.session)),
    // The best ranked of each text stands for the others: a repeated idea is said once.
    onceEach(stores, ideas),
    chainsOf(
      ideas.map((i) => i.id),
      stores,
    ),
  ]);
  const spans = new Map(spanRows.map((s) => [s.id, s]));
  const parents = spanRows.flatMap((s) =>
    s.parentId && !spans.has(s.parentId) ? [s.parentId] : [],
  );
  for (const s of await rows.spans(parents)) spans.set(s.id, s);
  return { spans, sessions, seen: new Map(seen.map((x) => [x.idea.id, x.seen])), chains };
}

export async function assembleAnswer(
  query: string,
  ranked: readonly RankedIdea[],
  budget: number,
  note: string | null,
  stores: GraphStores,
): Promise<{ groups: AnswerGroup[]; text: string; tokens: number }> {
  const { rows } = stores;
  const read = await around(ranked, stores);
  const spanOf = (id: number | null): SpanRow | null =>
    id === null ? null : (read.spans.get(id) ?? null);
  const sessionOf = (label: string): GraphSessionRow | null => read.sessions.get(label) ?? null;
  const seen = read.seen;

  const head = `Memory graph for "${clip(query, 120)}"`;
  const noteLines = note ? [note] : [];
  // The counts line is written last; reserve room for the largest it can be.
  const countsReserve = estimateTokens(`${ranked.length} ideas from ${ranked.length} topics.\n`);
  let used = cost([head, ...noteLines]) + countsReserve;
  const groups = new Map<number, AnswerGroup>();
  const covered = new Set<number>();
  const keys = new Set<string>();
  for (const r of ranked) {
    const said = seen.get(r.idea.id);
    if (covered.has(r.idea.id) || !said || keys.has(said.key)) continue;
    const span = spanOf(r.idea.spanId);
    const key = span?.id ?? 0;
    const existing = groups.get(key);
    const group: AnswerGroup = existing ?? {
      span,
      topic: span?.parentId ? spanOf(span.parentId) : null,
      session: sessionOf(r.idea.session),
      ideas: [],
    };
    const chain = read.chains.get(r.idea.id) ?? null;
    const answer: AnswerIdea = {
      idea: r.idea,
      score: r.score,
      via: r.via,
      entities: [],
      chain,
      seen: said,
    };
    const lines = [ideaLine(answer), ...(chain ? [chainLine(chain)] : [])];
    const need = cost(lines) + (existing ? 0 : cost(['', ...groupHeader(group)]));
    if (used + need > budget) continue;
    used += need;
    group.ideas.push(answer);
    groups.set(key, group);
    covered.add(r.idea.id);
    keys.add(said.key);
    for (const l of chain ?? []) covered.add(l.id);
  }
  const list = [...groups.values()];
  const entities = await rows.entitiesOfAwaited(list.flatMap((g) => g.ideas.map((a) => a.idea.id)));
  const shown = new Set(
    (await shownEntities(stores, [...entities.values()].flat())).map((e) => e.id),
  );
  for (const g of list) {
    for (const a of g.ideas) {
      a.entities = (entities.get(a.idea.id) ?? [])
        .filter((e) => shown.has(e.id))
        .map((e) => e.name);
    }
    g.ideas.sort(
      (x, y) => x.idea.createdAt - y.idea.createdAt || x.idea.sourceLine - y.idea.sourceLine,
    );
  }
  const count = list.reduce((n, g) => n + g.ideas.length, 0);
  const lines: string[] = [head, ...noteLines];
  lines.push(
    count === 0
      ? 'Nothing in the indexed conversations matches.'
      : `${count} ideas from ${list.length} topics.`,
  );
  for (const g of list) {
    lines.push('', ...groupHeader(g));
    for (const a of g.ideas) {
      lines.push(ideaLine(a));
      if (a.chain) lines.push(chainLine(a.chain));
    }
  }
  const text = `${lines.join('\n')}\n`;
  return { groups: list, text, tokens: estimateTokens(text) };
}
