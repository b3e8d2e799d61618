/**
 * The memory judge through the gateway: one small structured job per re-observation the rules
 * cannot place (memory/judge.ts), on the gate model. Held to a per-minute cap of its own and to
 * the gateway's daily budget without waiting for it: a judgement that cannot run now is the
 * rules', not a stalled marker's.
 */
import { z } from 'zod';

import { MINUTE_MS, type Clock } from '../clock.js';
import type { JudgeRequest, MemoryJudge } from '../memory/index.js';
import type { Gateway } from './gateway.js';

export const JUDGE_JOB_KIND = 'memory-judge';
/** A marker's write, or the operator's request, waits on the verdict: one attempt this long at most. */
const JUDGE_TIMEOUT_MS = 20_000;

const SYSTEM = `[watchkeeper:${JUDGE_JOB_KIND}] You keep an operations team's memory of their services. A new observation arrived that is close to memories already kept about the same service. Decide:
- "same": it states the same fact as one memory (in other words, other units or number spellings); name that memory.
- "updates": it states a new value or state of the very thing one memory describes (a changed duration, schedule, version, dependency, or "no longer"), so that memory is now out of date; name that memory.
- "different": it states a different fact (another subject, another property), even if it shares words.
Answer with JSON only: {"verdict": "same" | "updates" | "different", "memory": <id or null>, "reason": "<one short sentence>"}.`;

const ANSWER = z.object({
  verdict: z.enum(['same', 'updates', 'different']),
  memory: z.number().int().nullable(),
  reason: z.string().max(500),
});

export interface MemoryJudgeOptions {
  gateway: Gateway;
  clock: Clock;
  /** The model this small job runs on (the gateway's gate model). */
  model: string;
  /** Judgements asked of the model in any minute at most; the rules decide the rest. */
  perMinute: number;
  /** The gateway's deadline: the one attempt takes it, or JUDGE_TIMEOUT_MS if that is shorter. */
  timeoutMs?: number;
}

function promptOf(r: JudgeRequest): string {
  const lines = r.candidates.map((c) => `#${c.id}: ${c.observation}`);
  return `Service: ${r.service ?? '(none)'}\n\nMemories kept:\n${lines.join('\n')}\n\nNew observation:\n${r.observation}`;
}

export function createMemoryJudge(o: MemoryJudgeOptions): MemoryJudge {
  /** When the judgements of the last minute were asked, oldest first. */
  const asked: number[] = [];
  return async (request) => {
    if (!o.gateway.available || request.candidates.length === 0) return null;
    const now = o.clock.now();
    while (asked.length > 0 && asked[0]! <= now - MINUTE_MS) asked.shift();
    if (asked.length >= o.perMinute) return null;
    if ((await o.gateway.state()).budgetReached) return null;
    asked.push(now);
    const r = await o.gateway.run({
      kind: JUDGE_JOB_KIND,
      model: o.model,
      system: SYSTEM,
      prompt: promptOf(request),
      schema: ANSWER,
      ref: `memory judge: ${request.observation.slice(0, 60)}`,
      maxTokens: 300,
      timeoutMs: Math.min(JUDGE_TIMEOUT_MS, o.timeoutMs ?? JUDGE_TIMEOUT_MS),
      retries: 0,
    });
    if (!r.ok || !r.json) return null;
    const { verdict, memory, reason } = r.json;
    const named = memory !== null && request.candidates.some((c) => c.id === memory);
    // A verdict that names no memory it was shown is not one the rules can act on.
    if (verdict !== 'different' && !named) return null;
    return {
      verdict,
      memoryId: verdict === 'different' ? null : memory,
      reason: reason.trim().slice(0, 300),
    };
  };
}
