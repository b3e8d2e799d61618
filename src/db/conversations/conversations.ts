/**
 * Conversations and their messages. Messages are numbered from 0 per conversation without gaps:
 * appended in one transaction with the conversation's counters, so two writers can never take
 * the same number, and a client that sends its own number gets the same row back on a retry.
 */
import { AppError } from '../../errors.js';
import {
  allAwaited,
  getAwaited,
  movedMeanwhile,
  retryWhileMoved,
  runAwaited,
  writeAwaited,
} from '../engine.js';
import { keyedQueue } from '../keyed-queue.js';
import { type Db, statementCache } from '../open.js';

export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export interface ConversationRow {
  id: string;
  scope: string;
  createdAt: number;
  updatedAt: number;
  /** Seq of the newest message, -1 when there is none. */
  lastSeq: number;
  messageCount: number;
  /** How far the automatic extraction has read (-1: nothing yet). */
  extractedThroughSeq: number;
  extractedAt: number | null;
}

/** A conversation with what its list row shows. */
export interface ConversationListRow extends ConversationRow {
  summaries: number;
  processing: number;
  failed: number;
  /** The latest completed summary's window, if any. */
  latestStartSeq: number | null;
  latestEndSeq: number | null;
  memories: number;
  sharedWithOps: boolean;
}

export interface MessageRow {
  conversationId: string;
  seq: number;
  role: MessageRole;
  content: string;
  createdAt: number;
}

/** Messages of a conversation, oldest first, and whether the span asked for holds more. */
export interface MessageSpan {
  messages: MessageRow[];
  more: boolean;
}

export type AppendOutcome =
  | { kind: 'created'; message: MessageRow; conversation: ConversationRow }
  | { kind: 'duplicate'; message: MessageRow; conversation: ConversationRow }
  /** The seq is taken by another message, or would leave a gap. */
  | { kind: 'conflict'; expectedSeq: number; existing: MessageRow | null }
  /** The conversation exists with another scope than the one asked for. */
  | { kind: 'scope_mismatch'; scope: string };

export interface NewMessage {
  conversationId: string;
  /** Used only when the conversation is created by this message. */
  scope: string;
  /** When given by the scope's owner, it must match the existing scope. */
  requireScope?: boolean;
  role: MessageRole;
  content: string;
  /** The client's own number; omitted: the next one. */
  seq?: number;
  at: number;
}

/** Tries of an awaited append whose number another instance took meanwhile. */
const APPEND_ATTEMPTS = 8;

const CONVERSATION = `id, scope, created_at AS createdAt, updated_at AS updatedAt,
  last_seq AS lastSeq, message_count AS messageCount,
  extracted_through_seq AS extractedThroughSeq, extracted_at AS extractedAt`;
const CONVERSATION_C = `c.id, c.scope, c.created_at AS createdAt, c.updated_at AS updatedAt,
  c.last_seq AS lastSeq, c.message_count AS messageCount,
  c.extracted_through_seq AS extractedThroughSeq, c.extracted_at AS extractedAt`;
const MESSAGE = `conversation_id AS conversationId, seq, role, content, created_at AS createdAt`;

export function createConversationStore(db: Db, instance = 'local') {
  const cached = statementCache(db);
  const getOne = db.prepare(`SELECT ${CONVERSATION} FROM conversations WHERE id = ?`);
  const insertConversation = db.prepare(`INSERT INTO conversations (id, scope, created_at,
    updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`);
  const insertMessage = db.prepare(`INSERT INTO conversation_messages (conversation_id, seq, role,
    content, created_at) VALUES (?, ?, ?, ?, ?)`);
  // The number is taken only while it is still the next one.
  const bumpFrom = db.prepare(`UPDATE conversations SET last_seq = ?,
    message_count = message_count + 1, updated_at = ? WHERE id = ? AND last_seq = ?`);
  const messageAt = db.prepare(
    `SELECT ${MESSAGE} FROM conversation_messages WHERE conversation_id = ? AND seq = ?`,
  );
  const range = db.prepare(`SELECT ${MESSAGE} FROM conversation_messages
    WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`);
  const latest = db.prepare(`SELECT ${MESSAGE} FROM conversation_messages
    WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?`);
  // Sizes only: octet_length reads a value's length from its record header, not the value.
  const newestSizes = db.prepare(`SELECT seq, octet_length(content) AS bytes
    FROM conversation_messages WHERE conversation_id = ? AND seq BETWEEN ? AND ?
    ORDER BY seq DESC LIMIT ?`);
  const oldestSizes = db.prepare(`SELECT seq, octet_length(content) AS bytes
    FROM conversation_messages WHERE conversation_id = ? AND seq BETWEEN ? AND ?
    ORDER BY seq LIMIT ?`);
  const setExtracted = db.prepare(`UPDATE conversations SET extracted_through_seq = ?,
    extracted_at = ? WHERE id = ? AND extracted_through_seq < ?`);
  const countAll = db.prepare('SELECT COUNT(*) AS n FROM conversations');
  const claimExtraction = db.prepare(`UPDATE conversations SET extract_instance = ?,
    extract_until = ? WHERE id = ?
    AND (extract_until IS NULL OR extract_until <= ? OR extract_instance = ?)`);
  const releaseExtraction = db.prepare(`UPDATE conversations SET extract_instance = NULL,
    extract_until = NULL WHERE id = ? AND extract_instance = ?`);
  const dueForExtraction = db.prepare(`SELECT ${CONVERSATION} FROM conversations
    WHERE last_seq > extracted_through_seq AND coalesce(extracted_at, created_at) <= ?
    ORDER BY coalesce(extracted_at, created_at) LIMIT ?`);

  /**
   * What appending `m` to `conversation` (as read, with the message `existing` at the seq the
   * client sent, if it is not the next one) comes to: a refusal or a duplicate, or the number
   * the message takes.
   */
  const decide = (
    m: NewMessage,
    conversation: ConversationRow | undefined,
    existing: MessageRow | null,
  ): AppendOutcome | { kind: 'append'; next: number } => {
    if (conversation && m.requireScope && conversation.scope !== m.scope) {
      return { kind: 'scope_mismatch', scope: conversation.scope };
    }
    const next = (conversation?.lastSeq ?? -1) + 1;
    if (m.seq !== undefined && m.seq !== next) {
      if (conversation && existing && existing.role === m.role && existing.content === m.content) {
        return { kind: 'duplicate', message: existing, conversation };
      }
      return { kind: 'conflict', expectedSeq: next, existing };
    }
    return { kind: 'append', next };
  };

  /**
   * Appends a message, awaited (the API: serve's event loop goes on meanwhile). Read, then
   * written in one transaction guarded on the number read (the conversation made first if it is
   * new); read again when another instance took that number meanwhile, and refused as `busy`
   * when it still could not take one after APPEND_ATTEMPTS tries. This process's own appends to
   * one conversation run one after another, so that they never take each other's number.
   */
  const inTurn = keyedQueue<string>();
  const append = (m: NewMessage): Promise<AppendOutcome> =>
    inTurn([m.conversationId], () =>
      retryWhileMoved(async () => {
        const conversation = (await getAwaited(getOne, m.conversationId)) as
          ConversationRow | undefined;
        const seq = m.seq;
        const existing =
          seq !== undefined && conversation && seq !== conversation.lastSeq + 1
            ? (((await getAwaited(messageAt, m.conversationId, seq)) as MessageRow | undefined) ??
              null)
            : null;
        const d = decide(m, conversation, existing);
        if (d.kind !== 'append') return d;
        await writeAwaited(db, [
          ...(conversation
            ? []
            : [{ stmt: insertConversation, params: [m.conversationId, m.scope, m.at, m.at] }]),
          { stmt: bumpFrom, params: [d.next, m.at, m.conversationId, d.next - 1], expect: 1 },
          { stmt: insertMessage, params: [m.conversationId, d.next, m.role, m.content, m.at] },
        ]);
        const { conversationId, role, content, at } = m;
        return {
          kind: 'created' as const,
          message: { conversationId, seq: d.next, role, content, createdAt: at },
          conversation: (await getAwaited(getOne, conversationId)) as ConversationRow,
        };
      }, APPEND_ATTEMPTS).catch((err: unknown) => {
        if (!movedMeanwhile(err)) throw err;
        throw new AppError(
          'busy',
          `conversation ${m.conversationId}: other writers kept taking its next number; send the message again`,
          { cause: err },
        );
      }),
    );

  return {
    append,

    async get(id: string): Promise<ConversationRow | null> {
      return ((await getAwaited(getOne, id)) as ConversationRow | undefined) ?? null;
    },

    /** Messages with seq in [from, to], in order. */
    async messages(id: string, from: number, to: number): Promise<MessageRow[]> {
      if (to < from) return [];
      return (await allAwaited(range, id, from, to)) as MessageRow[];
    },

    /** The newest `limit` messages, oldest first. */
    async latestMessages(id: string, limit: number): Promise<MessageRow[]> {
      return ((await allAwaited(latest, id, limit)) as MessageRow[]).reverse();
    },

    /**
     * A bounded span of the messages with seq in [from, to], oldest first: the `keep` end of it,
     * at most `limit` messages and at most `maxBytes` of content (always one message at least).
     * Two queries whatever the conversation's size: the sizes, then the rows that fit. `more`
     * says whether messages of the span were left out.
     */
    async span(
      id: string,
      o: { from: number; to: number; limit: number; maxBytes: number; keep: 'newest' | 'oldest' },
    ): Promise<MessageSpan> {
      if (o.to < o.from || o.limit < 1) return { messages: [], more: false };
      const sizes = (await allAwaited(
        o.keep === 'newest' ? newestSizes : oldestSizes,
        id,
        o.from,
        o.to,
        o.limit + 1,
      )) as { seq: number; bytes: number }[];
      let n = 0;
      let bytes = 0;
      while (n < Math.min(sizes.length, o.limit)) {
        bytes += Number(sizes[n]!.bytes);
        if (n > 0 && bytes > o.maxBytes) break;
        n += 1;
      }
      if (n === 0) return { messages: [], more: false };
      const ends = [sizes[0]!.seq, sizes[n - 1]!.seq];
      const messages = (await allAwaited(
        range,
        id,
        Math.min(...ends),
        Math.max(...ends),
      )) as MessageRow[];
      return { messages, more: n < sizes.length };
    },

    /** Conversations, most recently active first, with their summary and memory counts. */
    async list(opts: { limit?: number; offset?: number } = {}): Promise<ConversationListRow[]> {
      const stmt = cached(`SELECT ${CONVERSATION_C},
          (SELECT COUNT(*) FROM conversation_summaries s WHERE s.conversation_id = c.id) AS summaries,
          (SELECT COUNT(*) FROM conversation_summaries s
            WHERE s.conversation_id = c.id AND s.status = 'processing') AS processing,
          (SELECT COUNT(*) FROM conversation_summaries s
            WHERE s.conversation_id = c.id AND s.status = 'failed') AS failed,
          l.start_seq AS latestStartSeq, l.end_seq AS latestEndSeq,
          (SELECT COUNT(DISTINCT memory_id) FROM conversation_memories cm
            WHERE cm.conversation_id = c.id) AS memories,
          coalesce(sc.shared_with_ops, 0) AS sharedWithOps
        FROM conversations c
        LEFT JOIN conversation_summaries l ON l.id = (SELECT id FROM conversation_summaries s
          WHERE s.conversation_id = c.id AND s.status = 'completed'
          ORDER BY s.end_seq DESC, s.id DESC LIMIT 1)
        LEFT JOIN memory_scopes sc ON sc.name = c.scope
        ORDER BY c.updated_at DESC, c.id LIMIT ? OFFSET ?`);
      const rows = (await allAwaited(stmt, opts.limit ?? 100, opts.offset ?? 0)) as (Omit<
        ConversationListRow,
        'sharedWithOps'
      > & { sharedWithOps: number })[];
      return rows.map((r) => ({ ...r, sharedWithOps: r.sharedWithOps === 1 }));
    },

    async count(): Promise<number> {
      return ((await getAwaited(countAll)) as { n: number }).n;
    },

    /** Moves the extraction cursor forward (never back). */
    async markExtracted(id: string, throughSeq: number, at: number): Promise<void> {
      await runAwaited(setExtracted, throughSeq, at, id, throughSeq);
    },

    /**
     * Claims the conversation's extraction for this instance until `until` (or renews its own
     * claim): false while another instance holds a claim that has not run out. Instances sharing
     * the database thus never read the same new messages at once.
     */
    async claimExtraction(id: string, at: number, until: number): Promise<boolean> {
      return (await runAwaited(claimExtraction, instance, until, id, at, instance)).changes === 1;
    },

    /** Gives this instance's claim on the conversation's extraction back. */
    async releaseExtraction(id: string): Promise<void> {
      await runAwaited(releaseExtraction, id, instance);
    },

    /** Conversations with unread messages, last extracted before `before` (the timed trigger). */
    async dueForExtraction(before: number, limit: number): Promise<ConversationRow[]> {
      return (await allAwaited(dueForExtraction, before, limit)) as ConversationRow[];
    },
  };
}

export type ConversationStore = ReturnType<typeof createConversationStore>;
