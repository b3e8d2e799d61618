/**
 * memory_verify: check a claim against memory before acting on it or storing it. `conflict`
 * when a memory on the same topic states a different value (the supersession rule: numbers,
 * durations, versions, ports, negation); `confirmed` at or above the model's dedup threshold
 * (or from the related one, stating the same values); `related` between the related and dedup
 * thresholds (or sharing the words a lexical comparison calls related), or when nothing is that
 * close but the claim names a service memory knows (it knows the topic, not this); `new` below.
 * When the claim names a known service, only that service's memories (and general ones) are
 * compared.
 */
import { z } from 'zod';

import { AppError } from '../../errors.js';
import {
  compareFacts,
  type Contradiction,
  LEXICAL,
  sameValues,
  textSimilarity,
  valuesCovered,
} from '../../memory/index.js';
import type { ToolContext } from '../context.js';
import { factsLine, head, memoryData, round } from '../format.js';
import { MAX_QUERY_LENGTH } from '../limits.js';
import { closestMemories, type Match, similarityText } from '../matching.js';
import { answer } from '../results.js';
import { serviceFor } from '../service-for.js';

export const VERIFY_INPUT = {
  claim: z
    .string({ error: 'expected text (the claim to check)' })
    .describe(
      'A specific statement to check, e.g. "jellyfin listens on port 8096" rather than "jellyfin port".',
    ),
};

export type Verdict = 'confirmed' | 'related' | 'conflict' | 'new';

const SHOWN = 5;

export async function memoryVerify(ctx: ToolContext, args: { claim: string }) {
  const claim = args.claim.trim();
  if (claim === '' || claim.length > MAX_QUERY_LENGTH) {
    throw new AppError(
      'invalid_input',
      claim === ''
        ? 'claim: must not be empty'
        : `claim: is ${claim.length} characters, over the limit of ${MAX_QUERY_LENGTH}`,
      { data: { field: 'claim' } },
    );
  }
  const { service, remembered } = await serviceFor(ctx, undefined, claim);
  // Close by the model's measure, or by words: a small model can put a restatement of the same
  // topic under "related" (on the bench's development claims, 2 of 24 were read as new so).
  const close = (await closestMemories(ctx, claim, service)).filter(
    (m) =>
      m.similarity >= m.thresholds.related ||
      textSimilarity(m.memory.observation, claim) >= LEXICAL.related,
  );
  const conflicts: { match: Match; contradiction: Contradiction }[] = [];
  /** The close memories that state a value of another thing than the claim does. */
  const otherThing = new Set<Match>();
  for (const match of close) {
    const { otherSubject, contradiction } = compareFacts(match.memory.observation, claim);
    // A value of another thing is no conflict (as it supersedes nothing when observed).
    if (otherSubject) otherThing.add(match);
    else if (contradiction) conflicts.push({ match, contradiction });
  }
  const best = close[0];
  // Confirmed only when the memory holds every value the claim states, and states it of the
  // same thing ("a resilver takes two days" is not what "a scrub takes nine hours" says),
  // however close the words; short of a duplicate, when both state the same values (as a
  // re-observation then reinforces the memory).
  const confirms = (m: Match) =>
    (m.similarity >= m.thresholds.duplicate
      ? valuesCovered(claim, m.memory.observation)
      : sameValues(claim, m.memory.observation)) && !otherThing.has(m);
  // The closest memory that says it (the closest of all may be another fact of the service).
  const confirming = close.find(confirms);
  const verdict: Verdict =
    conflicts.length > 0
      ? 'conflict'
      : confirming
        ? 'confirmed'
        : best || remembered
          ? 'related'
          : 'new';
  const now = ctx.clock.now();
  const conflictOf = new Map(conflicts.map((c) => [c.match.memory.id, c.contradiction]));
  // Conflicting memories first: they are what the caller must look at; then the one that
  // confirms the claim.
  const rank = (m: Match) => (conflictOf.has(m.memory.id) ? 0 : m === confirming ? 1 : 2);
  const shown = [...close].sort((a, b) => rank(a) - rank(b)).slice(0, SHOWN);
  const lines = shown.map((m) => {
    const c = conflictOf.get(m.memory.id);
    const differs = c ? `differs: ${c.kind} ${c.old} here, ${c.new} in the claim` : null;
    return `${head(m.memory)}\n   ${factsLine(m.memory, now, [similarityText(m), differs])}`;
  });
  const t = best?.thresholds ?? ctx.knowledge.search.thresholds();
  const summary = (): string => {
    switch (verdict) {
      case 'conflict':
        return (
          `CONFLICT: ${conflicts.length === 1 ? 'a memory states' : `${conflicts.length} memories state`} ` +
          'a different value. Check which is true before acting; a marker or memory_add with the ' +
          'new value supersedes the old memory.'
        );
      case 'confirmed':
        return `CONFIRMED: memory already says this (${similarityText(confirming!)}).`;
      case 'related':
        return best
          ? `RELATED: memory knows the topic but does not say this (closest ${similarityText(best)}, ` +
              `from ${t.related} up to ${t.duplicate}).`
          : `RELATED: memory knows ${service} but nothing it says is close to this claim (all below ${t.related}).`;
      case 'new':
        return `NEW: nothing in memory is close to this claim (all below ${t.related}).`;
    }
  };
  const text = [summary(), ...lines].join('\n');
  return answer(text, {
    status: verdict,
    claim,
    service,
    thresholds: { duplicate: t.duplicate, related: t.related },
    matches: shown.map((m) => {
      const c = conflictOf.get(m.memory.id);
      return {
        ...memoryData(m.memory),
        similarity: round(m.similarity),
        measure: m.measure,
        ...(c ? { contradiction: c } : {}),
      };
    }),
  });
}
