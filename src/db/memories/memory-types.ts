/**
 * The memories table's rows and the values written into them: what a new memory holds, the
 * changes computed by the caller (src/memory) and the history entries they leave.
 */
import type { Category } from '../../memory/policy.js';

export interface MemoryRow {
  id: number;
  service: string | null;
  category: Category;
  observation: string;
  confidence: number;
  baseConfidence: number;
  active: boolean;
  pinned: boolean;
  createdAt: number;
  updatedAt: number;
  lastReinforcedAt: number;
  sessionId: number | null;
  tier: number;
  /** The memory that replaced this one (a contradicting observation), if any. */
  supersededBy: number | null;
  lastSurfacedAt: number | null;
  surfaceCount: number;
  importance: Importance;
  /** Added to the importance level by memory_reinforce calls (0.1 each); see importanceValue. */
  importanceBoost: number;
  source: MemorySource;
  /** Which marker, tool call, conversation range or file it came from. */
  sourceRef: string | null;
  /** 'ops' (the scheduled sessions' memory) or a conversation scope. */
  scope: string;
  archivedAt: number | null;
  archiveReason: string | null;
  accessCount: number;
  lastAccessedAt: number | null;
  /** The instance that learned it, or FLEET when shared with every instance. */
  instance: string;
}

/** The instance name of a memory shared with the whole fleet. */
export const FLEET = 'fleet';

/** The instance name of a sidecar on its own (WATCHKEEPER_INSTANCE's default). */
export const LONE_INSTANCE = 'local';

export const IMPORTANCES = ['low', 'normal', 'high', 'core'] as const;
export type Importance = (typeof IMPORTANCES)[number];
export const MEMORY_SOURCES = ['marker', 'tool', 'operator', 'conversation', 'import'] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

export const HISTORY_ACTIONS = [
  'created',
  'reinforced',
  'decayed',
  'deactivated',
  'edited',
  'reactivated',
  'pinned',
  'unpinned',
  'deleted',
  'superseded',
  'archived',
  'restored',
  'merged',
  'imported',
  'shared',
  'unshared',
] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

export interface HistoryRow {
  id: number;
  memoryId: number;
  action: HistoryAction;
  oldConfidence: number | null;
  newConfidence: number | null;
  observation: string | null;
  sessionId: number | null;
  createdAt: number;
  /** The other memory of the change: the successor of a superseded memory. */
  relatedMemoryId: number | null;
  /** What made the change (marker, tool, operator, conversation, import), when recorded. */
  source: MemorySource | null;
  /** Evidence given with the change (a memory tool's new_evidence). */
  evidence: string | null;
}

export interface NewMemory {
  service: string | null;
  category: Category;
  observation: string;
  confidence: number;
  sessionId: number | null;
  tier: number;
  pinned?: boolean;
  at: number;
  /** When the first decay step falls due (see memory/decay nextDecayAt). */
  nextDecayAt: number;
  importance?: Importance;
  /** Defaults to operator for tier 0, marker otherwise. */
  source?: MemorySource;
  sourceRef?: string | null;
  scope?: string;
  evidence?: string | null;
  /** The instance that learned it, or FLEET; `local` when omitted. */
  instance?: string;
}

export interface MemoryFilter {
  /** `null` selects general memories (no service). */
  service?: string | null;
  category?: Category;
  status?: 'active' | 'inactive' | 'all';
  pinned?: boolean;
  importance?: Importance;
  /** true: archived by someone (archived_at set); false: not archived. */
  archived?: boolean;
  /** Only memories of these scopes (the ops block: 'ops' and the scopes shared with it). */
  scopes?: readonly string[];
  /** Only the memories of this instance (or, with FLEET, the shared ones). */
  instance?: string;
  /** Only what this instance sees: its own memories and the fleet's. */
  visibleTo?: string;
  limit?: number;
  offset?: number;
}

/** A change computed by the caller; `confidence`/`active` are the new values. */
export interface MemoryChange {
  id: number;
  action: HistoryAction;
  confidence: number;
  /**
   * The new confidence from the row as the change's transaction reads it (a reinforcement), so
   * that two instances reinforcing at once both count; overrides `confidence`.
   */
  confidenceOf?: (current: MemoryRow) => number;
  active: boolean;
  /** Set when the change restarts the decay clock (reinforce, edit, reactivate). */
  resetBase?: boolean;
  observation?: string;
  /** Wording recorded in the history (for a reinforcement, the new wording). */
  historyObservation?: string | null;
  pinned?: boolean;
  sessionId?: number | null;
  at: number;
  /** When the next decay step falls due; unchanged when omitted. */
  nextDecayAt?: number;
  /** Recorded in the history; with action `superseded`, also the memory's successor. */
  relatedMemoryId?: number;
  source?: MemorySource;
  evidence?: string | null;
  importance?: Importance;
  importanceBoost?: number;
  /** Sets (or, with null, clears) the archive date and reason; any change to active clears them. */
  archive?: { reason: string } | null;
  /** The survivor this memory was merged into (action `merged`). */
  mergedInto?: number;
}
