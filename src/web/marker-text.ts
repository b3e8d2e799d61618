/**
 * Marker tags (`[EVENT:warning:db]`, `[MEMORY:...]`, `[COOLDOWN:...]`, `[ESCALATE:...]`,
 * `[HEALTH:...]`) found at the start of a line, for display only: which badge class they get.
 * Whether a marker is valid and stored is decided by src/stream/markers.ts; this only highlights
 * what the agent wrote.
 */
import { normaliseLevel } from '../stream/index.js';

/** A CSS class of `.marker` in public/app.css; never taken from the text itself. */
export type MarkerBadge = 'info' | 'warning' | 'critical' | 'memory' | 'other';

/** A run of text, shown as a marker badge when `marker` is set. */
export interface TextSegment {
  text: string;
  marker: MarkerBadge | null;
}

// Same line start as the parser accepts: indentation and one list bullet before the tag.
const LEADING_TAG =
  /^([ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?)(\[(EVENT|MEMORY|COOLDOWN|ESCALATE|HEALTH):([^\]\r\n]*)\])/i;

/**
 * The marker tag opening `line`, or null. `start`/`end` delimit the tag (brackets included), so
 * a caller can keep the text before and after it.
 */
export function leadingMarker(
  line: string,
): { start: number; end: number; badge: MarkerBadge } | null {
  const m = LEADING_TAG.exec(line);
  if (!m) return null;
  const start = m[1]!.length;
  return { start, end: start + m[2]!.length, badge: badgeOf(m[3]!, m[4]!) };
}

function badgeOf(kind: string, fields: string): MarkerBadge {
  switch (kind.toUpperCase()) {
    case 'EVENT':
      return normaliseLevel(fields.split(':')[0]!.trim());
    case 'MEMORY':
      return 'memory';
    default:
      return 'other';
  }
}

/** Splits text into plain runs and marker tags (one per line at most), losing nothing. */
export function markerSegments(text: string): TextSegment[] {
  const out: TextSegment[] = [];
  const plain = (t: string) => {
    if (t === '') return;
    const last = out[out.length - 1];
    if (last && last.marker === null) last.text += t;
    else out.push({ text: t, marker: null });
  };
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const tag = leadingMarker(line);
    if (tag) {
      plain(line.slice(0, tag.start));
      out.push({ text: line.slice(tag.start, tag.end), marker: tag.badge });
      plain(line.slice(tag.end));
    } else {
      plain(line);
    }
    if (i < lines.length - 1) plain('\n');
  });
  return out;
}
