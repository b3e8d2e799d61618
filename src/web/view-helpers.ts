/** Formatting for views: pure functions over values (escaping is Eta's job, not theirs). */
import { type MemoryRow, OUTCOME_LABELS, type RunOutcomeKind } from '../db/index.js';
import { formatBytes } from './overview-data.js';
import {
  formatDate,
  formatSpan,
  formatTime,
  formatTimeElement,
  formatTimeOfDay,
} from './time-format.js';
import {
  formatConfidence,
  importanceValue,
  type ScoreParts,
  suggestsCore,
} from '../memory/index.js';

/** A moment as the dashboard shows it, in UTC; pages use `viewHelpersIn(zone).time`. */
export function time(ms: number | null): string {
  return formatTime(ms, 'UTC');
}

export function isoTime(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString();
}

export function ago(ms: number | null, now: number): string {
  if (ms === null) return '-';
  const s = Math.round((now - ms) / 1000);
  if (s < 60) return `${Math.max(0, s)}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

export function duration(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 90) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

export function cost(usd: number | null): string {
  return usd === null ? '-' : `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

export function confidence(c: number): string {
  return formatConfidence(c);
}

export function clip(text: string | null, max: number): string {
  if (!text) return '';
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** Like clip, but line breaks stay (blank lines fold into one): marker lines remain lines. */
export function clipLines(text: string | null, max: number): string {
  if (!text) return '';
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.replace(/[^\S\n]+/g, ' ').trim())
    .filter((l, i, all) => l.length > 0 || (i > 0 && all[i - 1]!.length > 0))
    .join('\n')
    .trim();
  return lines.length > max ? `${lines.slice(0, max - 1)}…` : lines;
}

/** A token count: a whole number, with thousands separators (usage can arrive as a fraction). */
export function tokens(n: number | null): string {
  return n === null ? '-' : Math.round(n).toLocaleString('en-US');
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** A window length for people: whole hours as "6 h", anything else in minutes. */
export function windowText(ms: number): string {
  const hours = ms / 3_600_000;
  return Number.isInteger(hours) ? `${hours} h` : `${Math.round(ms / 60_000)} min`;
}

/**
 * Why a search result ranked there, compactly: `words rank 2 · meaning 0.61 · conf ×0.95 · ...`
 * (`#N` on that row is the memory's id, never a rank).
 */
export function why(w: ScoreParts): string {
  return [
    w.lexicalRank === null ? null : `words rank ${w.lexicalRank}`,
    w.cosine === null ? null : `meaning ${w.cosine.toFixed(2)}`,
    `conf ×${w.confidenceWeight.toFixed(2)}`,
    `recency ×${w.recencyWeight.toFixed(2)}`,
    w.importanceWeight === 1 ? null : `importance ×${w.importanceWeight.toFixed(2)}`,
    `score ${w.score.toFixed(2)}`,
  ]
    .filter((p) => p !== null)
    .join(' · ');
}

/** The rest of the components, for the tooltip of `why`. */
export function whyDetail(w: ScoreParts): string {
  return [
    w.bm25 === null ? 'no word match' : `bm25 ${w.bm25.toFixed(2)}`,
    w.semanticRank === null ? 'not a meaning candidate' : `meaning rank ${w.semanticRank}`,
    `fused ${w.fused.toFixed(4)}`,
    `relevance ${w.relevance.toFixed(2)}`,
  ].join(' · ');
}

/** `normal`, or `normal +0.2 (0.7)` once memory_reinforce raised it. */
export function importance(m: Pick<MemoryRow, 'importance' | 'importanceBoost'>): string {
  if (m.importanceBoost <= 0) return m.importance;
  const boost = Math.round(m.importanceBoost * 100) / 100;
  return `${m.importance} +${boost} (${importanceValue(m.importance, m.importanceBoost)})`;
}

/** Whether the dashboard suggests promoting the memory to core (importance 0.8 or more). */
export function promote(m: Pick<MemoryRow, 'importance' | 'importanceBoost'>): boolean {
  return suggestsCore(m.importance, m.importanceBoost);
}

const SOURCE_WORDS: Record<MemoryRow['source'], string> = {
  marker: 'marker',
  tool: 'memory tool',
  operator: 'operator',
  conversation: 'conversation',
  import: 'import',
};

/** What wrote a memory or made a change: `marker`, `memory tool`, `operator`... */
export function source(value: MemoryRow['source'] | null): string {
  return value === null ? '' : SOURCE_WORDS[value];
}

export const viewHelpers = {
  /** A run's outcome as words: `needs a human`, `shut down`... */
  outcome: (kind: RunOutcomeKind) => OUTCOME_LABELS[kind],
  importance,
  promote,
  source,
  why,
  whyDetail,
  time,
  /** `time` as a one-line `<time>` element, for `<%~ %>`. */
  when: (ms: number | null) => formatTimeElement(ms, 'UTC'),
  /** The same single format as `time` (kept as a name older templates use). */
  shortTime: time,
  timeOfDay: (ms: number) => formatTimeOfDay(ms, 'UTC'),
  date: (ms: number) => formatDate(ms, 'UTC'),
  /** First to last seen of a repeated line, to the minute. */
  span: (first: number, last: number) => formatSpan(first, last, 'UTC'),
  isoTime,
  ago,
  duration,
  cost,
  confidence,
  clip,
  clipLines,
  plural,
  tokens,
  windowText,
  bytes: formatBytes,
};
export type ViewHelpers = typeof viewHelpers;

const inZone = new Map<string, ViewHelpers>();

/** The helpers with every displayed time in `timeZone` (WATCHKEEPER_TZ). */
export function viewHelpersIn(timeZone: string): ViewHelpers {
  let h = inZone.get(timeZone);
  if (!h) {
    const t = (ms: number | null) => formatTime(ms, timeZone);
    h = {
      ...viewHelpers,
      time: t,
      when: (ms: number | null) => formatTimeElement(ms, timeZone),
      shortTime: t,
      timeOfDay: (ms: number) => formatTimeOfDay(ms, timeZone),
      date: (ms: number) => formatDate(ms, timeZone),
      span: (first: number, last: number) => formatSpan(first, last, timeZone),
    };
    inZone.set(timeZone, h);
  }
  return h;
}
