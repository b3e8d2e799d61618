/**
 * The window arithmetic of conversation memory, as pure functions: seed 001's sliding summary
 * window, and seed 000's extraction windows (~500 tokens with ~100 tokens of overlap).
 */
import { estimateTokens } from '../memory/index.js';

export interface SeqRange {
  startSeq: number;
  endSeq: number;
}

/**
 * Seed 001's `calculate_summary_range`: the last `windowSize` messages up to the last saved
 * one, the start made even so a user message is never cut from its answer (seq 0-1 is round 1).
 */
export function summaryRange(lastSavedSeq: number, windowSize: number): SeqRange {
  const endSeq = lastSavedSeq;
  let startSeq = Math.max(0, endSeq - windowSize + 1);
  if (startSeq % 2 !== 0) startSeq += 1;
  return { startSeq, endSeq };
}

export interface WindowMessage {
  seq: number;
  role: string;
  content: string;
}

export interface ExtractionWindow extends SeqRange {
  /** The messages (a long one cut into pieces) the gate and the extractor see. */
  messages: WindowMessage[];
  tokens: number;
}

export interface WindowOptions {
  /** Messages from this seq on are new; earlier ones only give the first window its overlap. */
  fromSeq: number;
  windowTokens: number;
  overlapTokens: number;
}

/** A message longer than a window, cut into window-sized pieces (on whitespace when it can). */
function pieces(m: WindowMessage, windowTokens: number): WindowMessage[] {
  const maxChars = windowTokens * 4;
  if (m.content.length <= maxChars) return [m];
  const out: WindowMessage[] = [];
  let rest = m.content;
  while (rest.length > maxChars) {
    const cut = rest.lastIndexOf(' ', maxChars);
    const at = cut > maxChars / 2 ? cut : maxChars;
    out.push({ ...m, content: rest.slice(0, at).trim() });
    rest = rest.slice(at).trim();
  }
  if (rest !== '') out.push({ ...m, content: rest });
  return out;
}

/**
 * The windows to read: consecutive pieces up to `windowTokens`, each next window starting with
 * the last ~`overlapTokens` of the one before, so a fact said across the boundary is seen whole.
 * The first window starts with up to `overlapTokens` of the messages before `fromSeq`; nothing
 * is returned when there is no new message.
 */
export function extractionWindows(
  messages: readonly WindowMessage[],
  o: WindowOptions,
): ExtractionWindow[] {
  const units = messages
    .flatMap((m) => pieces(m, o.windowTokens))
    .map((m) => ({ m, tokens: estimateTokens(m.content) }));
  const firstNew = units.findIndex((u) => u.m.seq >= o.fromSeq);
  if (firstNew === -1) return [];
  // Step back into the already-read messages for the first window's overlap.
  let start = firstNew;
  let back = 0;
  while (start > 0 && back + units[start - 1]!.tokens <= o.overlapTokens) {
    start -= 1;
    back += units[start]!.tokens;
  }
  const out: ExtractionWindow[] = [];
  for (;;) {
    let end = start;
    let tokens = units[start]!.tokens;
    while (end + 1 < units.length && tokens + units[end + 1]!.tokens <= o.windowTokens) {
      end += 1;
      tokens += units[end]!.tokens;
    }
    const slice = units.slice(start, end + 1);
    out.push({
      startSeq: slice[0]!.m.seq,
      endSeq: slice[slice.length - 1]!.m.seq,
      messages: slice.map((u) => u.m),
      tokens,
    });
    if (end + 1 >= units.length) break;
    // The next window starts with the tail of this one that fits in the overlap.
    let next = end + 1;
    let overlap = 0;
    while (next - 1 > start && overlap + units[next - 1]!.tokens <= o.overlapTokens) {
      next -= 1;
      overlap += units[next]!.tokens;
    }
    start = next;
  }
  return out;
}
