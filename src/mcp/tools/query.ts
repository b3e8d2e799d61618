/**
 * memory_query: look something up mid-session. Scopes: `notes` (active memories), `archive`
 * (inactive ones, with why and since when), `knowledge` (services and what they are), `all`
 * (notes and knowledge merged by score). Every memory returned counts as read (access count and
 * last access, seed 002 step 4).
 */
import { z } from 'zod';

import type { ServiceRow } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { queryCoverage, queryWords } from '../../memory/index.js';
import type { ToolContext } from '../context.js';
import { factsLine, head, memoryData, round, when } from '../format.js';
import { MAX_QUERY_LENGTH } from '../limits.js';
import { answer } from '../results.js';

export const SCOPES = ['notes', 'archive', 'knowledge', 'all'] as const;
export type Scope = (typeof SCOPES)[number];
export const MAX_LIMIT = 20;

export const QUERY_INPUT = {
  query: z
    .string({ error: 'expected text (what to look for)' })
    .describe('What to look for: a topic, a question or keywords ("media server restart").'),
  scope: z
    .enum(SCOPES, { error: `expected one of ${SCOPES.join(', ')}` })
    .default('all')
    .describe(
      'notes: active memories; archive: inactive ones (decayed, superseded, archived) with why; ' +
        'knowledge: services and what they are; all (default): notes and knowledge by score.',
    ),
  limit: z.coerce
    .number({ error: `expected a whole number from 1 to ${MAX_LIMIT}` })
    .int({ error: `expected a whole number from 1 to ${MAX_LIMIT}` })
    .min(1, { error: `expected a whole number from 1 to ${MAX_LIMIT}` })
    .max(MAX_LIMIT, { error: `expected a whole number from 1 to ${MAX_LIMIT}` })
    .default(5)
    .describe(`How many results (1-${MAX_LIMIT}, default 5).`),
};

interface Hit {
  score: number;
  text: string;
  data: Record<string, unknown>;
  memoryId: number | null;
}

/** A service counts when the query names it or covers half of what it is called and does. */
const SERVICE_COVERAGE = 0.5;

async function serviceHits(ctx: ToolContext, query: string): Promise<Hit[]> {
  const named = new Set(queryWords(query, 64));
  const hits: Hit[] = [];
  for (const s of await ctx.stores.services.list()) {
    const coverage = queryCoverage(query, `${s.name} ${s.description ?? ''}`);
    const score = named.has(s.name) ? 1 : coverage;
    if (!named.has(s.name) && coverage < SERVICE_COVERAGE) continue;
    hits.push(serviceHit(s, score));
  }
  return hits;
}

function serviceHit(s: ServiceRow, score: number): Hit {
  const what = s.description ? `: ${s.description}` : ' (no description yet)';
  const source = s.descriptionSource ? ` (described by ${s.descriptionSource})` : '';
  return {
    score,
    memoryId: null,
    text:
      `service ${s.name}${what}${source}\n` +
      `   score ${score.toFixed(2)} · ${s.activeMemories} active and ${s.inactiveMemories} inactive memories · ${s.events} events`,
    data: {
      kind: 'service',
      score: round(score),
      name: s.name,
      description: s.description,
      description_source: s.descriptionSource,
      active_memories: s.activeMemories,
      inactive_memories: s.inactiveMemories,
      events: s.events,
    },
  };
}

async function memoryHits(ctx: ToolContext, query: string, limit: number, archive: boolean) {
  const found = await ctx.knowledge.search.search(query, {
    limit,
    status: archive ? 'inactive' : 'active',
  });
  const now = ctx.clock.now();
  const hits = found.results.map(({ memory, why }): Hit => {
    const inactive = archive ? ctx.knowledge.memory.inactiveReason(memory) : null;
    const status = inactive ? `inactive since ${when(inactive.at, now)}: ${inactive.reason}` : null;
    return {
      score: why.score,
      memoryId: memory.id,
      text: `${head(memory)}\n   ${factsLine(memory, now, [`score ${why.score.toFixed(2)}`, status])}`,
      data: {
        kind: 'memory',
        ...memoryData(memory),
        score: round(why.score),
        ...(inactive
          ? {
              inactive_reason: inactive.reason,
              inactive_since: new Date(inactive.at).toISOString(),
            }
          : {}),
      },
    };
  });
  return { hits, mode: found.mode };
}

export async function memoryQuery(
  ctx: ToolContext,
  args: { query: string; scope: Scope; limit: number },
) {
  const query = args.query.trim();
  if (query === '') {
    throw new AppError('invalid_input', 'query: must not be empty', { data: { field: 'query' } });
  }
  if (query.length > MAX_QUERY_LENGTH) {
    throw new AppError(
      'invalid_input',
      `query: is ${query.length} characters, over the limit of ${MAX_QUERY_LENGTH}`,
      { data: { field: 'query' } },
    );
  }
  let hits: Hit[] = [];
  let mode: 'hybrid' | 'lexical' | null = null;
  if (args.scope === 'notes' || args.scope === 'all' || args.scope === 'archive') {
    const found = await memoryHits(ctx, query, args.limit, args.scope === 'archive');
    hits = found.hits;
    mode = found.mode;
  }
  if (args.scope === 'knowledge' || args.scope === 'all')
    hits.push(...(await serviceHits(ctx, query)));
  hits.sort((a, b) => b.score - a.score);
  hits = hits.slice(0, args.limit);

  const read: number[] = hits.flatMap((h) => (h.memoryId === null ? [] : [h.memoryId]));
  if (read.length > 0) ctx.stores.memories.recordAccess(read, ctx.clock.now());

  const where =
    args.scope === 'archive'
      ? 'in the archive'
      : args.scope === 'knowledge'
        ? 'among the services'
        : 'in memory';
  const text =
    hits.length === 0
      ? `Nothing ${where} matches "${query}".`
      : `${hits.length} result${hits.length === 1 ? '' : 's'} ${where} for "${query}", best first` +
        `${mode === 'lexical' ? ' (matched by words only)' : ''}:\n` +
        hits.map((h) => h.text).join('\n');
  return answer(text, {
    query,
    scope: args.scope,
    mode,
    results: hits.map((h) => h.data),
  });
}
