/**
 * The little Markdown runbooks need: a document split at its headings (fenced code and HTML
 * comments are never headings), each part with the line it starts on, and a part's paragraphs.
 */

export interface Section {
  heading: string;
  level: number;
  /** 1-based line of the heading. */
  line: number;
  /** The lines under the heading, up to the next heading of any level. */
  lines: { text: string; line: number }[];
}

export interface Outline {
  /** The first level-1 heading, if any. */
  title: { text: string; line: number } | null;
  /** The lines before the first heading after the title. */
  intro: Section['lines'];
  sections: Section[];
}

export function outline(text: string): Outline {
  const out: Outline = { title: null, intro: [], sections: [] };
  let fence: string | null = null;
  let inComment = false;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const fenceMark = /^\s{0,3}(`{3,}|~{3,})/.exec(raw)?.[1];
    if (fence === null && !inComment && fenceMark) fence = fenceMark;
    else if (
      fence !== null &&
      fenceMark !== undefined &&
      fenceMark[0] === fence[0] &&
      fenceMark.length >= fence.length
    ) {
      fence = null;
    } else if (fence === null) {
      if (inComment || raw.trimStart().startsWith('<!--')) {
        inComment = !raw.includes('-->');
        return;
      }
      const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(raw);
      if (h) {
        const level = h[1]!.length;
        if (level === 1 && out.title === null && out.sections.length === 0) {
          out.title = { text: h[2]!, line };
        } else out.sections.push({ heading: h[2]!, level, line, lines: [] });
        return;
      }
    }
    (out.sections.at(-1)?.lines ?? out.intro).push({ text: raw, line });
  });
  return out;
}

/** The first paragraph of some lines as one line (list items joined with "; "); null if none. */
export function firstParagraph(lines: Section['lines']): string | null {
  let out = '';
  for (const { text } of lines) {
    const t = text.trim();
    if (t === '' || t.startsWith('```') || t.startsWith('<!--')) {
      if (out) break;
      continue;
    }
    const item = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(t);
    out = out ? `${out}${item ? '; ' : ' '}${item ? item[1] : t}` : (item?.[1] ?? t);
  }
  return out || null;
}

/** The list items (`- x`, `* x`, `1. x`) of some lines, continuation lines joined. */
export function listItems(lines: Section['lines']): { text: string; line: number }[] {
  const items: { text: string; line: number }[] = [];
  for (const { text, line } of lines) {
    const m = /^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$/.exec(text);
    if (m) items.push({ text: m[1]!.trim(), line });
    else if (text.trim() !== '' && /^\s+/.test(text) && items.length > 0) {
      items.at(-1)!.text += ` ${text.trim()}`;
    }
  }
  return items;
}
