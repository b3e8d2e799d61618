/**
 * The in-process publisher behind the live session view: what a running session streams, in
 * order, to any number of subscribers. A late subscriber gets the recent items first. Buffers are
 * bounded and dropped when the session ends (the session log file has everything).
 */
import type { SessionStatus } from '../db/index.js';
import type { StreamMessage } from '../stream/index.js';

export type FeedItem =
  /** `at`: when the message arrived (epoch ms). */
  | { seq: number; kind: 'message'; message: StreamMessage; at?: number }
  | { seq: number; kind: 'stderr'; text: string }
  | { seq: number; kind: 'end'; status: SessionStatus };

type NewItem = FeedItem extends infer T ? (T extends FeedItem ? Omit<T, 'seq'> : never) : never;
export type FeedListener = (item: FeedItem) => void;
export type SessionChangeListener = (change: { sessionId: number; status: SessionStatus }) => void;

interface Channel {
  items: FeedItem[];
  bytes: number;
  seq: number;
  listeners: Set<FeedListener>;
}

const MAX_BUFFERED_ITEMS = 2000;
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export class SessionFeed {
  /** `now`: the clock that stamps each message's arrival. */
  constructor(private readonly now: () => number = () => Date.now()) {}

  private readonly channels = new Map<number, Channel>();
  private readonly changeListeners = new Set<SessionChangeListener>();

  /** Opens the channel of a starting session. */
  open(sessionId: number): void {
    this.channels.set(sessionId, { items: [], bytes: 0, seq: 0, listeners: new Set() });
    this.emitChange(sessionId, 'running');
  }

  isLive(sessionId: number): boolean {
    return this.channels.has(sessionId);
  }

  liveSessions(): number[] {
    return [...this.channels.keys()];
  }

  /** `bytes` is the item's approximate size, used to bound the replay buffer. */
  publish(sessionId: number, item: NewItem, bytes = 0): void {
    const ch = this.channels.get(sessionId);
    if (!ch) return;
    ch.seq += 1;
    const full = { ...item, seq: ch.seq, at: this.now() } as FeedItem;
    ch.items.push(full);
    ch.bytes += bytes;
    sizes.set(full, bytes);
    while (
      ch.items.length > MAX_BUFFERED_ITEMS ||
      (ch.bytes > MAX_BUFFERED_BYTES && ch.items.length > 1)
    ) {
      const dropped = ch.items.shift()!;
      ch.bytes -= sizes.get(dropped) ?? 0;
    }
    for (const listener of ch.listeners) listener(full);
  }

  /**
   * Replays buffered items after `afterSeq`, then delivers new ones. Returns the unsubscribe
   * function, or null when the session is not live (read its log file instead).
   */
  subscribe(sessionId: number, listener: FeedListener, afterSeq = 0): (() => void) | null {
    const ch = this.channels.get(sessionId);
    if (!ch) return null;
    for (const item of ch.items) if (item.seq > afterSeq) listener(item);
    ch.listeners.add(listener);
    return () => ch.listeners.delete(listener);
  }

  /** Tells subscribers the session ended, then forgets it. */
  close(sessionId: number, status: SessionStatus): void {
    const ch = this.channels.get(sessionId);
    if (!ch) return;
    this.publish(sessionId, { kind: 'end', status });
    this.channels.delete(sessionId);
    ch.listeners.clear();
    this.emitChange(sessionId, status);
  }

  onSessionChange(listener: SessionChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private emitChange(sessionId: number, status: SessionStatus): void {
    for (const l of this.changeListeners) l({ sessionId, status });
  }
}

const sizes = new WeakMap<FeedItem, number>();
