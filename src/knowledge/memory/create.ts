/**
 * A new memory as an observation makes it: where it goes (this instance or the fleet), its
 * first decay step, and the provenance it keeps.
 */
import type { Importance, MemoryRow, MemorySource } from '../../db/index.js';
import { type Category, nextDecayAt } from '../../memory/index.js';
import type { MemoryContext } from './context.js';

export interface Observation {
  service: string | null;
  category: Category;
  observation: string;
  sessionId: number | null;
  tier: number;
  /** What writes it: a marker (default for the agent), a tool call, the operator, ... */
  source?: MemorySource;
  /** Which one: a tool call id, "conversation c42 #10-24", a file. */
  sourceRef?: string | null;
  /** Evidence given with it, kept in the history (a memory tool's new_evidence). */
  evidence?: string | null;
  importance?: Importance;
  /** 'ops' (default) or a conversation scope; dedup compares within one scope. */
  scope?: string;
}

export type ObserveInput = Observation & { confidence?: number; pinned?: boolean };

/** Writes the new memory (awaited: on PostgreSQL the event loop goes on) and reads it back. */
export async function createMemory(
  ctx: MemoryContext,
  input: ObserveInput,
  observation: string,
  now: number,
): Promise<MemoryRow> {
  const { memories, policy } = ctx;
  return ctx.mustGetAwaited(
    await memories.createAwaited({
      service: input.service,
      category: input.category,
      observation,
      confidence: input.confidence ?? policy.newConfidence,
      sessionId: input.sessionId,
      tier: input.tier,
      // Core memories are pinned: never decayed, archived or ranked below their peers.
      pinned: (input.pinned ?? false) || input.importance === 'core',
      at: now,
      nextDecayAt: nextDecayAt(now, now, policy),
      importance: input.importance ?? 'normal',
      source: input.source ?? (input.tier === 0 ? 'operator' : 'marker'),
      sourceRef: input.sourceRef ?? null,
      scope: input.scope ?? 'ops',
      evidence: input.evidence ?? null,
      instance: ctx.instanceFor(input.service, input.category),
    }),
  );
}
