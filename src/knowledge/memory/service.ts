/**
 * The one memory service, composed of its rooms over the same stores and policy: observing
 * (observe, add, judge, reinforce, supersede), the operator's curation (edits, standing, merge),
 * the archive, decay and fleet sharing. Every write to memory comes through here; values come
 * from the pure functions of src/memory and every change lands with its history row. (The
 * session's memory block is built in injection.ts.)
 */
import { createArchive } from './archive.js';
import { createMemoryContext, type MemoryDeps } from './context.js';
import { createDecay } from './decay.js';
import { createEdits } from './edits.js';
import { createJudging } from './judge.js';
import { createMerging } from './merge.js';
import { createObserving } from './observe.js';
import { createReinforcing } from './reinforce.js';
import { createSharing } from './sharing.js';
import { createStanding } from './standing.js';

export { type InactiveReason } from './archive.js';
export { type DecayReport } from './decay.js';
export { type MemoryEdit, type MemoryPatch } from './edits.js';
export { type Judgement } from './judge.js';
export { type MergeOutcome } from './merge.js';
export { type Observation, type ObserveOutcome } from './observe.js';
export { type Reinforcement } from './reinforce.js';
export { type ShareRules } from './sharing.js';

export function createMemoryService(deps: MemoryDeps) {
  const ctx = createMemoryContext(deps);
  const standing = createStanding(ctx);
  return {
    policy: ctx.policy,
    ...createSharing(ctx),
    ...createObserving(ctx),
    ...createJudging(ctx),
    ...createReinforcing(ctx),
    ...createMerging(ctx),
    ...createDecay(ctx),
    ...createEdits(ctx, standing),
    ...standing,
    ...createArchive(ctx),
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
