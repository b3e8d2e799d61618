/**
 * The second opinion on a re-observation the rules cannot place: close to an active memory of
 * its service (past the "related" threshold, short of "duplicate") and no contradiction the
 * rules can read. Asked of a model where one is configured (gateway/memory-judge.ts); where it
 * cannot answer (no model, over budget or the per-minute cap, a failure), the rules decide.
 */

export interface JudgeCandidate {
  id: number;
  observation: string;
}

export interface JudgeRequest {
  service: string | null;
  /** The new observation. */
  observation: string;
  /** The active memories it is close to, closest first. */
  candidates: JudgeCandidate[];
}

export interface JudgeVerdict {
  /** same: it says what memory `memoryId` says; updates: it replaces what `memoryId` says. */
  verdict: 'same' | 'updates' | 'different';
  /** One of the candidates' ids (null for `different`). */
  memoryId: number | null;
  reason: string;
}

/** Resolves to the model's verdict, or null when the rules must decide. Never throws. */
export type MemoryJudge = (request: JudgeRequest) => Promise<JudgeVerdict | null>;

/** The verdict as the memory's history keeps it (its evidence column). */
export function judgedEvidence(v: JudgeVerdict): string {
  const what = v.verdict === 'different' ? 'different' : `${v.verdict} #${v.memoryId}`;
  return `model judged: ${what}: ${v.reason}`;
}
