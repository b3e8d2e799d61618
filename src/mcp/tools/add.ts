/**
 * memory_add: store what the agent learned, through the same memory service as a marker. A
 * near-duplicate of an active memory of the same service reinforces it instead (and says so,
 * with the match); one that states a different value on the same topic supersedes it.
 */
import { z } from 'zod';

import { IMPORTANCES, type Importance } from '../../db/index.js';
import { CATEGORIES, validateCategory, validateObservation } from '../../memory/index.js';
import type { ToolContext } from '../context.js';
import { factsLine, head, memoryData, round } from '../format.js';
import { inferCategory } from '../infer.js';
import { similarityText } from '../matching.js';
import { answer } from '../results.js';
import { serviceFor } from '../service-for.js';

export const ADD_INPUT = {
  content: z
    .string({ error: 'expected text (the fact to remember)' })
    .describe('The fact to remember: specific and self-contained, one fact per call.'),
  service: z
    .string({ error: 'expected text (a service name such as jellyfin)' })
    .optional()
    .describe('The service it is about (lower-case name); omit or "general" for none.'),
  category: z
    .string({ error: `expected one of ${CATEGORIES.join(', ')}` })
    .optional()
    .describe(`One of ${CATEGORIES.join(', ')}; inferred from the text when omitted.`),
  importance: z
    .enum(IMPORTANCES, { error: `expected one of ${IMPORTANCES.join(', ')}` })
    .default('normal')
    .describe(
      'How much it matters: low, normal (default), high, or core (identity-level facts that must ' +
        'never be forgotten; core memories are pinned).',
    ),
};

const RANK: Record<Importance, number> = { low: 0, normal: 1, high: 2, core: 3 };

export async function memoryAdd(
  ctx: ToolContext,
  args: { content: string; service?: string; category?: string; importance: Importance },
  toolUseId: string | null,
) {
  const content = validateObservation(args.content);
  const { service, inferred } = await serviceFor(ctx, args.service, content);
  const category =
    args.category === undefined || args.category.trim() === ''
      ? inferCategory(content)
      : validateCategory(args.category);
  const outcome = await ctx.knowledge.memory.observe({
    service,
    category,
    observation: content,
    sessionId: ctx.caller.sessionId,
    tier: ctx.caller.tier,
    source: 'tool',
    sourceRef: toolUseId ? `memory_add ${toolUseId}` : 'memory_add',
    importance: args.importance,
  });
  let memory = outcome.memory;
  // Said again with more weight: the memory takes the higher importance.
  if (outcome.action === 'reinforced' && RANK[args.importance] > RANK[memory.importance]) {
    memory = await ctx.knowledge.memory.setImportance(memory.id, args.importance, 'tool');
  }
  const now = ctx.clock.now();
  const guessed = [
    args.category === undefined ? `category ${category} inferred` : null,
    inferred ? `service ${service} inferred from the text` : null,
  ].filter(Boolean);
  const note = guessed.length ? ` (${guessed.join('; ')})` : '';
  const match = outcome.match;
  let text: string;
  if (outcome.action === 'reinforced') {
    text =
      `Already known: reinforced memory #${memory.id} instead of adding a duplicate ` +
      `(${similarityText(match!)}).\n${head(memory)}\n${factsLine(memory, now)}`;
  } else if (outcome.action === 'superseded') {
    const old = outcome.replaced!;
    const c = outcome.contradiction!;
    text =
      `Stored memory #${memory.id}${note}. It supersedes memory #${old.id}, which said ` +
      `"${old.observation}" (${c.kind}: ${c.old} -> ${c.new}); #${old.id} is now inactive.\n` +
      `${head(memory)}\n${factsLine(memory, now)}`;
  } else {
    text = `Stored memory #${memory.id}${note}.\n${head(memory)}\n${factsLine(memory, now)}`;
  }
  return answer(text, {
    action: outcome.action,
    memory: memoryData(memory),
    ...(match
      ? {
          match: {
            id: match.memory.id,
            similarity: round(match.similarity),
            measure: match.measure,
          },
        }
      : {}),
    ...(outcome.replaced ? { replaced: memoryData(outcome.replaced) } : {}),
    ...(outcome.contradiction ? { contradiction: outcome.contradiction } : {}),
    inferred: {
      category: args.category === undefined,
      service: inferred,
    },
  });
}
