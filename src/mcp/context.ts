/** What every memory tool works with: the one memory service, the stores, who is calling. */
import type { Clock } from '../clock.js';
import type { Stores } from '../db/index.js';
import type { Knowledge } from '../knowledge/index.js';
import type { Logger } from '../log.js';

/** The session a tool call writes for, like a marker: set by the runner, absent interactively. */
export interface Caller {
  /** The watchkeeper session running the CLI, or null (an interactive Claude Code session). */
  sessionId: number | null;
  /** Its tier; 0 (the operator's) when interactive. */
  tier: number;
}

export interface ToolContext {
  knowledge: Knowledge;
  stores: Pick<Stores, 'memories' | 'search' | 'services' | 'sessions'>;
  caller: Caller;
  clock: Clock;
  log: Logger;
}
