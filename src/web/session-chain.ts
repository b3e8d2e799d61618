/** A session's escalation chain: the sessions above and below it, and what the chain cost. */
import type { SessionRow, SessionStore } from '../db/index.js';

export interface SessionChain {
  /** From the chain's first session down to this one's parent. */
  ancestors: SessionRow[];
  /** Everything escalated from this session, directly or not, by id. */
  descendants: SessionRow[];
  /** Number of sessions in the chain, this one included. */
  size: number;
  /** Sum of the known costs; null when no session of the chain reported one. */
  costUsd: number | null;
}

/** The chain `s` belongs to (two queries at once, whatever its depth). */
export async function sessionChain(sessions: SessionStore, s: SessionRow): Promise<SessionChain> {
  const [ancestors, descendants] = await Promise.all([
    sessions.ancestorsAwaited(s.id),
    sessions.descendantsAwaited(s.id),
  ]);
  const all = [...ancestors, s, ...descendants];
  const costs = all.map((x) => x.costUsd).filter((v): v is number => v !== null);
  return {
    ancestors,
    descendants,
    size: all.length,
    costUsd: costs.length ? costs.reduce((a, b) => a + b, 0) : null,
  };
}
