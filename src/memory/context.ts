/**
 * The "Operational Memory" block for `--append-system-prompt`, as seed 003 specifies:
 * confidence-ordered, grouped by service (general last), `- [category] text (confidence: x)`
 * lines, stopping at the first line that does not fit the token budget. The budget covers the
 * whole block, header included, so `estimateTokens(block) <= budget` always holds.
 */
import { formatConfidence } from './policy.js';
import { estimateTokens } from './tokens.js';

export interface ContextMemory {
  id: number;
  service: string | null;
  category: string;
  observation: string;
  confidence: number;
}

export interface ContextGroup {
  /** null for general memories. */
  service: string | null;
  /** In the order they should appear: confidence first. */
  memories: readonly ContextMemory[];
}

export interface ContextBlock {
  text: string;
  /** Ids of the memories included, in block order. */
  includedIds: number[];
  totalEligible: number;
  estimatedTokens: number;
}

export const GENERAL_GROUP = 'general';

// Room kept for the top header, sized for the largest numbers it can carry.
const HEADER_RESERVE = estimateTokens(headerLine(9_999_999, 9_999_999, 9_999_999) + '\n\n');

/**
 * Builds the block from groups already in display order (by their best memory's confidence);
 * the general group is moved last. Groups are consumed lazily, so a generator that queries
 * each group on demand does no work past the budget. Empty text when nothing fits.
 */
export function assembleContext(
  groups: Iterable<ContextGroup>,
  totalEligible: number,
  budget: number,
): ContextBlock {
  const empty: ContextBlock = { text: '', includedIds: [], totalEligible, estimatedTokens: 0 };
  if (budget <= 0) return empty;
  const lines: string[] = [];
  const includedIds: number[] = [];
  let tokens = HEADER_RESERVE;
  outer: for (const group of generalLast(groups)) {
    const heading = `### ${group.service ?? GENERAL_GROUP}`;
    const headingTokens = estimateTokens(`${lines.length > 0 ? '\n' : ''}${heading}\n`);
    let headingAdded = false;
    for (const memory of group.memories) {
      const line = memoryLine(memory);
      const lineTokens = estimateTokens(`${line}\n`);
      const needed = lineTokens + (headingAdded ? 0 : headingTokens);
      if (tokens + needed > budget) break outer;
      if (!headingAdded) {
        if (lines.length > 0) lines.push('');
        lines.push(heading);
        headingAdded = true;
      }
      lines.push(line);
      includedIds.push(memory.id);
      tokens += needed;
    }
  }
  if (includedIds.length === 0) return empty;
  const body = lines.join('\n');
  const render = (t: number) => `${headerLine(includedIds.length, totalEligible, t)}\n\n${body}`;
  // The header states the block's own estimate; a second pass settles a change in digit count.
  let estimate = estimateTokens(render(0));
  for (let i = 0; i < 3 && estimateTokens(render(estimate)) !== estimate; i += 1) {
    estimate = estimateTokens(render(estimate));
  }
  return { text: render(estimate), includedIds, totalEligible, estimatedTokens: estimate };
}

/** Yields the groups in order, holding back the general group (service null) until the end. */
function* generalLast(groups: Iterable<ContextGroup>): Generator<ContextGroup> {
  let general: ContextGroup[] = [];
  for (const group of groups) {
    if (group.service === null) general = [...general, group];
    else yield group;
  }
  yield* general;
}

export function memoryLine(memory: ContextMemory): string {
  return `- [${memory.category}] ${memory.observation} (confidence: ${formatConfidence(memory.confidence)})`;
}

function headerLine(included: number, total: number, tokens: number): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `## Operational Memory (${n(included)} of ${n(total)} memories, ~${n(tokens)} tokens)`;
}

/** Estimated cost of a memory line in the block (its heading counted when `newGroup`). */
export function lineCost(memory: ContextMemory, newGroup: boolean, first: boolean): number {
  const line = estimateTokens(`${memoryLine(memory)}\n`);
  if (!newGroup) return line;
  return line + estimateTokens(`${first ? '' : '\n'}### ${memory.service ?? GENERAL_GROUP}\n`);
}

/**
 * Takes memories in priority order while they fit the budget (stopping at the first that does
 * not, as the block does), then groups them by service in order of first appearance, so that the
 * block's layout stays seed 003's while what gets in follows the priority.
 */
export function selectByPriority(ordered: Iterable<ContextMemory>, budget: number): ContextGroup[] {
  const groups = new Map<string | null, ContextMemory[]>();
  const seen = new Set<number>();
  let tokens = HEADER_RESERVE;
  for (const memory of ordered) {
    if (seen.has(memory.id)) continue;
    const group = groups.get(memory.service);
    const cost = lineCost(memory, group === undefined, groups.size === 0);
    if (tokens + cost > budget) break;
    tokens += cost;
    seen.add(memory.id);
    if (group) group.push(memory);
    else groups.set(memory.service, [memory]);
  }
  return [...groups].map(([service, memories]) => ({ service, memories }));
}
