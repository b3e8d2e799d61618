/**
 * What the automatic extraction did with each window of a conversation: the gate's decision and
 * reason (kept so its precision can be reviewed), the extractor's candidates, and the memories
 * they created or reinforced.
 */
import { allAwaited, getAwaited, insertedId, writeAwaited } from '../engine.js';
import type { Db } from '../open.js';

export const MEMORY_TYPES = [
  'decision',
  'insight',
  'fact',
  'preference',
  'project',
  'conversation',
] as const;
export type ExtractedType = (typeof MEMORY_TYPES)[number];

export type WindowStatus = 'rejected' | 'extracted' | 'failed';

/** What is recorded of one window of a conversation. */
export interface NewExtractionWindow {
  conversationId: string;
  startSeq: number;
  endSeq: number;
  tokens: number;
  status: WindowStatus;
  /** The gate's answer; null when the gate itself failed. */
  worth: boolean | null;
  reason: string | null;
  gateJobId: number | null;
  extractJobId: number | null;
  candidates: number;
  created: number;
  reinforced: number;
  error: string | null;
  at: number;
}

export interface ExtractionWindowRow extends Omit<NewExtractionWindow, 'at'> {
  id: number;
  createdAt: number;
}

export interface ExtractedMemory {
  memoryId: number;
  action: 'created' | 'reinforced' | 'superseded';
  type: ExtractedType;
  importance: number;
  tags: string[];
}

export interface ConversationMemoryRow extends ExtractedMemory {
  id: number;
  conversationId: string;
  windowId: number;
  startSeq: number;
  endSeq: number;
  createdAt: number;
  /** The memory as it is now (null when it was deleted since). */
  observation: string | null;
  active: boolean | null;
}

export interface GateStats {
  windows: number;
  worth: number;
  /** Yes-windows that yielded at least one memory (the gate's precision, as measured here). */
  productive: number;
  failed: number;
}

const WINDOW = `id, conversation_id AS conversationId, start_seq AS startSeq, end_seq AS endSeq,
  tokens, status, worth, reason, gate_job_id AS gateJobId, extract_job_id AS extractJobId,
  candidates, created, reinforced, error, created_at AS createdAt`;

type RawWindow = Omit<ExtractionWindowRow, 'worth'> & { worth: number | null };

export function createExtractionStore(db: Db) {
  const insertWindow = db.prepare(`INSERT INTO extraction_windows (conversation_id, start_seq,
    end_seq, tokens, status, worth, reason, gate_job_id, extract_job_id, candidates, created,
    reinforced, error, created_at) VALUES (@conversationId, @startSeq, @endSeq, @tokens, @status,
    @worth, @reason, @gateJobId, @extractJobId, @candidates, @created, @reinforced, @error, @at)`);
  const insertMemory = db.prepare(`INSERT INTO conversation_memories (conversation_id, window_id,
    memory_id, action, type, importance, tags_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const windows = db.prepare(`SELECT ${WINDOW} FROM extraction_windows
    WHERE conversation_id = ? ORDER BY id DESC LIMIT ?`);
  const memories = db.prepare(`SELECT cm.id, cm.conversation_id AS conversationId,
    cm.window_id AS windowId, cm.memory_id AS memoryId, cm.action, cm.type, cm.importance,
    cm.tags_json AS tagsJson, cm.created_at AS createdAt, w.start_seq AS startSeq,
    w.end_seq AS endSeq, m.observation, m.active
    FROM conversation_memories cm JOIN extraction_windows w ON w.id = cm.window_id
    LEFT JOIN memories m ON m.id = cm.memory_id
    WHERE cm.conversation_id = ? ORDER BY cm.id DESC LIMIT ?`);
  const stats = db.prepare(`SELECT COUNT(*) AS windows, coalesce(SUM(worth = 1), 0) AS worth,
    coalesce(SUM(worth = 1 AND (created + reinforced) > 0), 0) AS productive,
    coalesce(SUM(status = 'failed'), 0) AS failed
    FROM extraction_windows WHERE (CAST(? AS TEXT) IS NULL OR conversation_id = ?)`);

  return {
    /** A window's outcome and the memories it yielded, in one transaction. */
    async record(w: NewExtractionWindow, yielded: readonly ExtractedMemory[]): Promise<number> {
      const [window] = await writeAwaited(db, [
        {
          stmt: insertWindow,
          params: [{ ...w, worth: w.worth === null ? null : w.worth ? 1 : 0 }],
        },
        ...yielded.map((m) => ({
          stmt: insertMemory,
          params: [
            w.conversationId,
            insertedId(0),
            m.memoryId,
            m.action,
            m.type,
            m.importance,
            JSON.stringify(m.tags),
            w.at,
          ],
        })),
      ]);
      return Number(window!.lastInsertRowid);
    },

    async windows(conversationId: string, limit = 200): Promise<ExtractionWindowRow[]> {
      return ((await allAwaited(windows, conversationId, limit)) as RawWindow[]).map((r) => ({
        ...r,
        worth: r.worth === null ? null : r.worth === 1,
      }));
    },

    async memories(conversationId: string, limit = 500): Promise<ConversationMemoryRow[]> {
      const rows = (await allAwaited(memories, conversationId, limit)) as (Omit<
        ConversationMemoryRow,
        'tags' | 'active'
      > & { tagsJson: string; active: number | null })[];
      return rows.map(({ tagsJson, active, ...r }) => ({
        ...r,
        tags: JSON.parse(tagsJson) as string[],
        active: active === null ? null : active === 1,
      }));
    },

    /** The gate's record: windows seen, said yes, yes and productive, failed. */
    async gateStats(conversationId: string | null = null): Promise<GateStats> {
      return (await getAwaited(stats, conversationId, conversationId)) as GateStats;
    },
  };
}

export type ExtractionStore = ReturnType<typeof createExtractionStore>;
