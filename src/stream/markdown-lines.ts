/**
 * The lines of a Markdown text as markdown-it's block parser sees them: where each starts and
 * ends, its indentation in columns (tabs to the next multiple of 4), and the tests that look at
 * one line only (thematic breaks, ATX headings, list markers, a table's header and delimiter
 * rows). markdown-blocks.ts builds the block structure on it. Pure.
 */

/** The lines of `text` as markdown-it counts them. */
export function markdownLines(text: string): string[] {
  return text.split(/\r\n?|\n/);
}

export const SPACE = 0x20;
export const TAB = 0x09;
export const isSpace = (c: number) => c === SPACE || c === TAB;

export type Parent = 'root' | 'list' | 'paragraph' | 'blockquote' | 'table';

export class LineState {
  protected readonly src: string;
  protected readonly bMarks: number[] = [];
  protected readonly eMarks: number[] = [];
  protected readonly tShift: number[] = [];
  protected readonly sCount: number[] = [];
  protected readonly bsCount: number[] = [];
  protected readonly quoted: boolean[];
  protected blkIndent = 0;
  protected listIndent = -1;
  protected parentType: Parent = 'root';
  protected level = 0;
  protected line = 0;

  constructor(lines: readonly string[]) {
    this.src = lines.join('\n');
    this.quoted = new Array<boolean>(lines.length).fill(false);
    let start = 0;
    for (const text of lines) {
      let indent = 0;
      let offset = 0;
      while (indent < text.length && isSpace(text.charCodeAt(indent))) {
        offset += text.charCodeAt(indent) === TAB ? 4 - (offset % 4) : 1;
        indent += 1;
      }
      this.bMarks.push(start);
      this.eMarks.push(start + text.length);
      this.tShift.push(indent);
      this.sCount.push(offset);
      this.bsCount.push(0);
      start += text.length + 1;
    }
    // markdown-it's closing empty line: a list item's look past the last line sees a blank.
    this.bMarks.push(this.src.length);
    this.eMarks.push(this.src.length);
    this.tShift.push(0);
    this.sCount.push(0);
    this.bsCount.push(0);
  }

  protected code(c: number): number {
    return this.src.charCodeAt(c);
  }

  protected first(line: number): number {
    return this.bMarks[line]! + this.tShift[line]!;
  }

  protected isEmpty(line: number): boolean {
    return this.first(line) >= this.eMarks[line]!;
  }

  protected skipChars(pos: number, ch: number, max: number): number {
    while (pos < max && this.code(pos) === ch) pos += 1;
    return pos;
  }

  protected skipSpaces(pos: number, max: number): number {
    while (pos < max && isSpace(this.code(pos))) pos += 1;
    return pos;
  }

  protected mark(from: number, to: number): void {
    for (let l = from; l < to; l += 1) this.quoted[l] = true;
  }

  protected hr(line: number, silent: boolean): boolean {
    if (this.sCount[line]! - this.blkIndent >= 4) return false;
    let pos = this.first(line);
    const max = this.eMarks[line]!;
    const marker = this.code(pos);
    if (pos >= max || (marker !== 0x2a && marker !== 0x2d && marker !== 0x5f)) return false;
    let count = 0;
    for (; pos < max; pos += 1) {
      const ch = this.code(pos);
      if (ch === marker) count += 1;
      else if (!isSpace(ch)) return false;
    }
    if (count < 3) return false;
    if (!silent) this.line = line + 1;
    return true;
  }

  protected heading(line: number, silent: boolean): boolean {
    if (this.sCount[line]! - this.blkIndent >= 4) return false;
    let pos = this.first(line);
    const max = this.eMarks[line]!;
    if (pos >= max || this.code(pos) !== 0x23) return false;
    let level = 0;
    while (pos < max && this.code(pos) === 0x23 && level <= 6) {
      level += 1;
      pos += 1;
    }
    if (level > 6 || (pos < max && !isSpace(this.code(pos)))) return false;
    if (!silent) this.line = line + 1;
    return true;
  }

  /** The position after a list marker on `line`, or -1; `ordered` tells which kind. */
  protected listMarker(line: number): { after: number; ordered: boolean; value: number } | null {
    const start = this.first(line);
    const max = this.eMarks[line]!;
    let pos = start;
    const ch = this.code(pos);
    if (pos < max && (ch === 0x2a || ch === 0x2d || ch === 0x2b)) {
      pos += 1;
      if (pos < max && !isSpace(this.code(pos))) return null;
      return { after: pos, ordered: false, value: 0 };
    }
    if (pos + 1 >= max) return null;
    while (pos < max && this.code(pos) >= 0x30 && this.code(pos) <= 0x39) {
      pos += 1;
      if (pos - start >= 10) return null;
    }
    if (pos === start || pos >= max) return null;
    const delim = this.code(pos);
    if (delim !== 0x2e && delim !== 0x29) return null;
    pos += 1;
    if (pos < max && !isSpace(this.code(pos))) return null;
    return { after: pos, ordered: true, value: Number(this.src.slice(start, pos - 1)) };
  }

  protected tableRow(line: number): string[] {
    const text = this.src.slice(this.first(line), this.eMarks[line]).trim();
    const cells: string[] = [];
    let current = '';
    for (let i = 0; i < text.length; i += 1) {
      if (text[i] === '|' && text[i - 1] !== '\\') {
        cells.push(current);
        current = '';
      } else current += text[i];
    }
    cells.push(current);
    if (cells.length > 0 && cells[0] === '') cells.shift();
    if (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
    return cells;
  }

  /** Whether a table starts at `startLine` (a header row, then a delimiter row that fits it). */
  protected tableHead(startLine: number, endLine: number): boolean {
    const delimiter = startLine + 1;
    if (delimiter + 1 > endLine) return false;
    if (this.sCount[delimiter]! < this.blkIndent) return false;
    if (this.sCount[delimiter]! - this.blkIndent >= 4) return false;
    const row = this.src.slice(this.first(delimiter), this.eMarks[delimiter]);
    if (!/^[|:-][|:\- \t]/.test(row) || /^-[ \t]/.test(row) || /[^|:\- \t]/.test(row)) return false;
    const columns = row.split('|');
    let aligns = 0;
    for (let i = 0; i < columns.length; i += 1) {
      const t = columns[i]!.trim();
      if (!t) {
        if (i === 0 || i === columns.length - 1) continue;
        return false;
      }
      if (!/^:?-+:?$/.test(t)) return false;
      aligns += 1;
    }
    const head = this.src.slice(this.first(startLine), this.eMarks[startLine]).trim();
    if (!head.includes('|')) return false;
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    const count = this.tableRow(startLine).length;
    if (count === 0 || count !== aligns) return false;
    return true;
  }
}
