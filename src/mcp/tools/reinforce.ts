/**
 * memory_reinforce: new evidence for something memory already holds. The best active match at
 * or above 0.75 cosine (seed 002; word overlap at the lexical dedup threshold when there is no
 * vector) gets +0.1 confidence through the memory service's lifecycle, like a re-observed
 * marker, and +0.1 importance; the evidence and the session go into its history. At an
 * importance of 0.8 or more the answer suggests promotion to core.
 */
import { z } from 'zod';

import { formatConfidence, validateObservation } from '../../memory/index.js';
import type { ToolContext } from '../context.js';
import { confirmations, factsLine, head, importanceText, memoryData, round } from '../format.js';
import { closestMemories, type Match, similarityText } from '../matching.js';
import { answer } from '../results.js';
import { serviceFor } from '../service-for.js';

/** Seed 002's reinforcement threshold for cosine. */
export const REINFORCE_COSINE = 0.75;

export const REINFORCE_INPUT = {
  content: z
    .string({ error: 'expected text (the fact to reinforce)' })
    .describe('The fact to reinforce; it is matched against memory by meaning.'),
  new_evidence: z
    .string({ error: 'expected text' })
    .optional()
    .describe('What confirms it now: a command and its output, a log line, a source.'),
};

/** The similarity a match needs: 0.75 cosine, or the lexical dedup threshold. */
export function reinforceThreshold(m: Pick<Match, 'measure' | 'thresholds'>): number {
  return m.measure === 'cosine' ? REINFORCE_COSINE : m.thresholds.duplicate;
}

export async function memoryReinforce(
  ctx: ToolContext,
  args: { content: string; new_evidence?: string },
) {
  const content = validateObservation(args.content);
  const { service } = await serviceFor(ctx, undefined, content);
  const matches = await closestMemories(ctx, content, service);
  const best = matches
    .filter((m) => m.similarity >= reinforceThreshold(m))
    .sort((a, b) => b.similarity - a.similarity)[0];
  if (!best) {
    const closest = matches[0];
    const near = closest
      ? ` The closest is #${closest.memory.id} (${similarityText(closest)}, needs ${reinforceThreshold(closest)}): "${closest.memory.observation}".`
      : '';
    return answer(`No matching memory to reinforce.${near} Use memory_add to store it.`, {
      action: 'no_match',
      closest: closest
        ? {
            ...memoryData(closest.memory),
            similarity: round(closest.similarity),
            measure: closest.measure,
          }
        : null,
    });
  }
  const r = ctx.knowledge.memory.reinforce(best.memory.id, {
    sessionId: ctx.caller.sessionId,
    source: 'tool',
    evidence: args.new_evidence ?? null,
    observation: content,
  });
  const m = r.memory;
  const now = ctx.clock.now();
  const history = ctx.stores.memories.history(m.id);
  const lines = [
    `Reinforced memory #${m.id} (${similarityText(best)}): confidence ` +
      `${formatConfidence(r.before.confidence)} -> ${formatConfidence(m.confidence)}, ` +
      `importance ${r.importanceBefore} -> ${r.importanceAfter}; ${confirmations(history)}.` +
      (args.new_evidence?.trim() ? ' The evidence is recorded in its history.' : ''),
    head(m),
    `   ${factsLine(m, now)}`,
  ];
  if (r.suggestCore) {
    lines.push(
      `Importance is now ${importanceText(m)}, at or above 0.8: consider promoting it to core ` +
        '(never decayed or archived). memory_add with the same content and importance "core" ' +
        'promotes it; the operator sees the suggestion on the dashboard.',
    );
  }
  return answer(lines.join('\n'), {
    action: 'reinforced',
    memory: memoryData(m),
    similarity: round(best.similarity),
    measure: best.measure,
    confidence: { before: r.before.confidence, after: m.confidence },
    importance: { before: r.importanceBefore, after: r.importanceAfter },
    suggest_core: r.suggestCore,
  });
}
