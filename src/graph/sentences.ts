/**
 * A turn's prose as sentences: code blocks, quoted text and tables are dropped (they are what
 * someone else wrote or printed, not what was said), Markdown decoration is removed, and a marker
 * prefix (`[MEMORY:timing:jellyfin] ...`) leaves its text and names its service.
 */

export interface Sentence {
  text: string;
  /** A service named by a marker prefix on this sentence's line. */
  service: string | null;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const MARKER = /^\[(EVENT|MEMORY|COOLDOWN|SERVICE|ESCALATE):([^\]\r\n]*)\]\s*/i;
const BULLET = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+/;
const HEADING = /^\s{0,3}#{1,6}\s+/;
/** A sentence ends at . ! or ? followed by space and something that starts a sentence. */
const BOUNDARY = /(?<=[.!?])\s+(?=["'([]?[A-Z0-9])/;
const ABBREVIATION = /\b(?:e\.g|i\.e|etc|vs|cf|approx|min|max|Mr|Mrs|Ms|Dr|No)\.$/i;

/** Sentences longer than this are cut (a wall of text is not one idea). */
export const MAX_SENTENCE_CHARS = 400;

function clean(line: string): string {
  return line
    .replace(/\*\*|__/g, '')
    .replace(/(^|\s)[*_](\S[^*_]*\S|\S)[*_](?=\s|[.,;:!?]|$)/g, '$1$2')
    .replace(/\[([^\]]+)\]\((?:[^)]+)\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function splitSentences(paragraph: string): string[] {
  const parts = paragraph.split(BOUNDARY);
  const out: string[] = [];
  for (const part of parts) {
    const prev = out[out.length - 1];
    if (prev !== undefined && ABBREVIATION.test(prev)) out[out.length - 1] = `${prev} ${part}`;
    else out.push(part);
  }
  return out;
}

export function sentencesOf(text: string): Sentence[] {
  const out: Sentence[] = [];
  let fence: string | null = null;
  let paragraph: string[] = [];
  let service: string | null = null;
  const flush = () => {
    const joined = clean(paragraph.join(' '));
    paragraph = [];
    if (joined.length === 0) return;
    for (const s of splitSentences(joined)) {
      const t = s.trim();
      if (t.length === 0) continue;
      out.push({
        text: t.length > MAX_SENTENCE_CHARS ? `${t.slice(0, MAX_SENTENCE_CHARS - 1)}…` : t,
        service,
      });
    }
    service = null;
  };
  for (const raw of text.split(/\r?\n/)) {
    const f = FENCE.exec(raw);
    if (fence !== null) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && raw.trim() === f[1])
        fence = null;
      continue;
    }
    if (f) {
      flush();
      fence = f[1]!;
      continue;
    }
    if (/^\s*>/.test(raw) || /^\s*\|/.test(raw) || /^(?: {4}|\t)/.test(raw)) {
      flush();
      continue;
    }
    if (raw.trim().length === 0) {
      flush();
      continue;
    }
    let line = raw.replace(HEADING, '');
    const bullet = BULLET.test(line);
    line = line.replace(BULLET, '');
    const marker = MARKER.exec(line);
    if (marker) {
      flush();
      const kind = marker[1]!.toUpperCase();
      const parts = marker[2]!.split(':');
      const named = kind === 'SERVICE' ? parts[0] : parts.length > 1 ? parts[parts.length - 1] : '';
      service = named?.trim().toLowerCase() || null;
      line = line.slice(marker[0].length);
      paragraph.push(line);
      flush();
      continue;
    }
    // A bullet or a heading is its own statement; other lines of a paragraph run on.
    if (bullet || HEADING.test(raw)) {
      flush();
      paragraph.push(line);
      flush();
    } else paragraph.push(line);
  }
  flush();
  return out;
}
