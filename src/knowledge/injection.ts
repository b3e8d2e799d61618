/**
 * The memory block a session gets, built for that session: its query is what triggered it (the
 * alert or webhook text, a "Run now" prompt, an escalation's handoff) plus the services named in
 * recent warning and critical events. Pinned memories come first, then the most relevant above
 * the threshold, then the most confident, within the tier's budget; the header and line format
 * are seed 003's. What went in, and why, is recorded for the session page. A session sees its
 * own instance's memories and the fleet's.
 */
import type { Clock } from '../clock.js';
import type { EventStore, MemoryRow, MemoryStore, SurfacingStore } from '../db/index.js';
import {
  assembleContext,
  type ContextBlock,
  type ContextMemory,
  estimateTokens,
  type ScoreParts,
  selectByPriority,
} from '../memory/index.js';
import type { MemoryService } from './memory/service.js';
import type { Search } from './search.js';

export interface SessionQuery {
  /** The trigger's own text: alert, prompt, handoff; null for a plain scheduled run. */
  trigger: string | null;
  /** Look back this far for warning/critical events whose services join the query. */
  recentEventsMs?: number;
}

export interface InjectedMemory {
  memoryId: number;
  /** pinned, relevant (with its score) or confident. */
  reason: 'pinned' | 'relevant' | 'confident';
  score: number | null;
  why: ScoreParts | null;
}

export interface SessionBlock extends ContextBlock {
  query: string;
  injected: InjectedMemory[];
}

const DAY = 86_400_000;
// The shortest possible prompt line ("- [x] y (confidence: 0.9)\n") is 6 estimated tokens.
const MIN_LINE_TOKENS = estimateTokens('- [x] y (confidence: 0.9)\n');

export function createInjection(deps: {
  memories: MemoryStore;
  events: EventStore;
  surfacing: SurfacingStore;
  service: MemoryService;
  search: Search;
  clock: Clock;
  /** The scopes the ops sessions see: 'ops' and those the operator shared with ops. */
  opsScopes: () => Promise<string[]>;
  /** This instance: the block holds its memories and the fleet's (every memory when omitted). */
  instance?: string;
}) {
  const { memories, events, surfacing, service, search, clock } = deps;

  /** The session's query: the trigger text and the services in recent warnings and criticals. */
  const queryFor = async (q: SessionQuery): Promise<string> => {
    const since = clock.now() - (q.recentEventsMs ?? DAY);
    const services = await events.recentServices(since, ['warning', 'critical'], 20);
    return [q.trigger ?? '', ...services].filter((s) => s.trim() !== '').join('\n');
  };

  return {
    queryFor,

    /**
     * Decays, then builds the block for a session with this query within `budget` tokens. Its
     * reads are awaited (on PostgreSQL the event loop goes on); a decay step that is due writes
     * in one synchronous transaction.
     */
    async build(q: SessionQuery, budget: number): Promise<SessionBlock> {
      await service.decay();
      // Conversation memories reach a session only when the operator shared their scope.
      const [query, scopes] = await Promise.all([queryFor(q), deps.opsScopes()]);
      const threshold = service.policy.activeThreshold;
      const visible = deps.instance === undefined ? {} : { visibleTo: deps.instance };
      const perList = Math.max(1, Math.floor(budget / MIN_LINE_TOKENS) + 1);
      const reasons = new Map<number, InjectedMemory>();
      const ordered: ContextMemory[] = [];
      const take = (m: MemoryRow, reason: InjectedMemory['reason'], why: ScoreParts | null) => {
        if (reasons.has(m.id) || m.confidence < threshold) return;
        reasons.set(m.id, { memoryId: m.id, reason, score: why?.score ?? null, why });
        ordered.push(m);
      };
      const pinned = await memories.listAwaited({
        pinned: true,
        status: 'active',
        scopes,
        ...visible,
        limit: perList,
      });
      for (const m of pinned) take(m, 'pinned', null);
      if (query !== '') {
        const answer = await search.search(query, {
          limit: perList,
          scopes,
          minCosine: search.thresholds().related,
        });
        for (const r of answer.results) take(r.memory, 'relevant', r.why);
      }
      const [confident, eligible] = await Promise.all([
        memories.listAwaited({ status: 'active', scopes, ...visible, limit: perList }),
        memories.countEligible(threshold, scopes, deps.instance),
      ]);
      for (const m of confident) take(m, 'confident', null);

      const groups = selectByPriority(ordered, budget);
      const block = assembleContext(groups, eligible, budget);
      const injected = block.includedIds.map((id) => reasons.get(id)!);
      return { ...block, query, injected };
    },

    /** Records what a session was given and bumps each memory's surfacing counters. */
    async record(sessionId: number, injected: readonly InjectedMemory[]): Promise<void> {
      await surfacing.record(
        sessionId,
        injected.map((i) => ({
          memoryId: i.memoryId,
          score: i.score,
          detail: { reason: i.reason, ...(i.why ? { why: i.why } : {}) },
        })),
        'context',
        clock.now(),
      );
    },
  };
}

export type Injection = ReturnType<typeof createInjection>;
