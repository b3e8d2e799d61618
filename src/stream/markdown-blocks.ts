/**
 * Which lines of a text Markdown shows as quoted: inside a blockquote, a fenced code block or an
 * indented code block. The block structure is the one the dashboard renders (markdown-it's
 * CommonMark rules, tables included, raw HTML off), reproduced for the rules that decide where
 * those blocks start and end: lists and their items, paragraphs and their lazy continuation
 * lines, setext and ATX headings, thematic breaks, tables. A fence closes only on a line
 * indented at most three spaces past its container, with a run of the same character at least
 * as long and nothing after it; fences do not nest. Link reference definitions read as
 * paragraphs.
 *
 * Lines are split as markdown-it splits them (`\r\n`, `\r` and `\n`). Every line is looked at a
 * bounded number of times, so a text of any length is read in linear time. Pure.
 */

/** Past this nesting depth markdown-it renders nothing more; those lines count as quoted. */
const MAX_NESTING = 100;

/** The lines of `text` as markdown-it counts them. */
export function markdownLines(text: string): string[] {
  return text.split(/\r\n?|\n/);
}

const SPACE = 0x20;
const TAB = 0x09;
const isSpace = (c: number) => c === SPACE || c === TAB;

type Parent = 'root' | 'list' | 'paragraph' | 'blockquote' | 'table';
type Rule = (line: number, end: number, silent: boolean) => boolean;

/** For each line, true when it is inside a blockquote, a fence or an indented code block. */
export function quotedLines(lines: readonly string[]): boolean[] {
  return new BlockScan(lines).run();
}

class BlockScan {
  private readonly src: string;
  private readonly bMarks: number[] = [];
  private readonly eMarks: number[] = [];
  private readonly tShift: number[] = [];
  private readonly sCount: number[] = [];
  private readonly bsCount: number[] = [];
  private readonly quoted: boolean[];
  private blkIndent = 0;
  private listIndent = -1;
  private parentType: Parent = 'root';
  private level = 0;
  private line = 0;

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

  run(): boolean[] {
    this.tokenize(0, this.quoted.length);
    return this.quoted;
  }

  private code(c: number): number {
    return this.src.charCodeAt(c);
  }

  private first(line: number): number {
    return this.bMarks[line]! + this.tShift[line]!;
  }

  private isEmpty(line: number): boolean {
    return this.first(line) >= this.eMarks[line]!;
  }

  private skipChars(pos: number, ch: number, max: number): number {
    while (pos < max && this.code(pos) === ch) pos += 1;
    return pos;
  }

  private skipSpaces(pos: number, max: number): number {
    while (pos < max && isSpace(this.code(pos))) pos += 1;
    return pos;
  }

  private mark(from: number, to: number): void {
    for (let l = from; l < to; l += 1) this.quoted[l] = true;
  }

  // Rules in markdown-it's order; each list names the rules that may end the block it is for.
  private readonly rules: Rule[] = [
    (l, e, s) => this.table(l, e, s),
    (l, e) => this.codeBlock(l, e),
    (l, e, s) => this.fence(l, e, s),
    (l, e, s) => this.blockquote(l, e, s),
    (l, _e, s) => this.hr(l, s),
    (l, e, s) => this.list(l, e, s),
    (l, _e, s) => this.heading(l, s),
    (l, e) => this.lheading(l, e),
    (l, e) => this.paragraph(l, e),
  ];
  private readonly endsParagraph: Rule[] = [
    this.rules[0]!,
    this.rules[2]!,
    this.rules[3]!,
    this.rules[4]!,
    this.rules[5]!,
    this.rules[6]!,
  ];
  private readonly endsBlockquote: Rule[] = [
    this.rules[2]!,
    this.rules[3]!,
    this.rules[4]!,
    this.rules[5]!,
    this.rules[6]!,
  ];
  private readonly endsList: Rule[] = [this.rules[2]!, this.rules[3]!, this.rules[4]!];

  private terminates(rules: Rule[], line: number, end: number): boolean {
    return rules.some((rule) => rule(line, end, true));
  }

  private tokenize(startLine: number, endLine: number): void {
    let line = startLine;
    while (line < endLine) {
      while (line < endLine && this.isEmpty(line)) line += 1;
      this.line = line;
      if (line >= endLine) break;
      if (this.sCount[line]! < this.blkIndent) break;
      if (this.level >= MAX_NESTING) {
        this.mark(line, endLine);
        this.line = endLine;
        break;
      }
      for (const rule of this.rules) if (rule(line, endLine, false)) break;
      line = this.line;
      if (line < endLine && this.isEmpty(line)) {
        line += 1;
        this.line = line;
      }
    }
  }

  private codeBlock(startLine: number, endLine: number): boolean {
    if (this.sCount[startLine]! - this.blkIndent < 4) return false;
    let next = startLine + 1;
    let last = next;
    while (next < endLine) {
      if (this.isEmpty(next)) next += 1;
      else if (this.sCount[next]! - this.blkIndent >= 4) last = ++next;
      else break;
    }
    this.mark(startLine, last);
    this.line = last;
    return true;
  }

  private fence(startLine: number, endLine: number, silent: boolean): boolean {
    let pos = this.first(startLine);
    let max = this.eMarks[startLine]!;
    if (this.sCount[startLine]! - this.blkIndent >= 4 || pos + 3 > max) return false;
    const marker = this.code(pos);
    if (marker !== 0x7e && marker !== 0x60) return false;
    const mem = pos;
    pos = this.skipChars(pos, marker, max);
    const len = pos - mem;
    if (len < 3) return false;
    if (marker === 0x60 && this.src.slice(pos, max).includes('`')) return false;
    if (silent) return true;
    let next = startLine;
    let closed = false;
    for (;;) {
      next += 1;
      if (next >= endLine) break;
      pos = this.first(next);
      const start = pos;
      max = this.eMarks[next]!;
      // A non-empty line outdented past the container ends the container, and the fence.
      if (pos < max && this.sCount[next]! < this.blkIndent) break;
      if (this.code(pos) !== marker || pos >= max) continue;
      if (this.sCount[next]! - this.blkIndent >= 4) continue;
      pos = this.skipChars(pos, marker, max);
      if (pos - start < len) continue;
      if (this.skipSpaces(pos, max) < max) continue;
      closed = true;
      break;
    }
    this.line = next + (closed ? 1 : 0);
    this.mark(startLine, this.line);
    return true;
  }

  /**
   * Everything inside a blockquote is quoted; where it ends depends on what it holds (a lazy
   * line continues only a paragraph), so its content is parsed with the `>` marks taken off.
   */
  private blockquote(startLine: number, endLine: number, silent: boolean): boolean {
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    if (this.code(this.first(startLine)) !== 0x3e) return false;
    if (silent) return true;
    const saved: [number, number, number, number, number][] = [];
    const save = (l: number) =>
      saved.push([l, this.bMarks[l]!, this.tShift[l]!, this.sCount[l]!, this.bsCount[l]!]);
    const oldParent = this.parentType;
    this.parentType = 'blockquote';
    let lastLineEmpty = false;
    let next = startLine;
    for (; next < endLine; next += 1) {
      const outdented = this.sCount[next]! < this.blkIndent;
      let pos = this.first(next);
      const max = this.eMarks[next]!;
      if (pos >= max) break;
      if (this.code(pos) === 0x3e && !outdented) {
        pos += 1;
        let initial = this.sCount[next]! + 1;
        let spaceAfter = false;
        let adjustTab = false;
        if (this.code(pos) === SPACE) {
          pos += 1;
          initial += 1;
          spaceAfter = true;
        } else if (this.code(pos) === TAB) {
          spaceAfter = true;
          if ((this.bsCount[next]! + initial) % 4 === 3) {
            pos += 1;
            initial += 1;
          } else adjustTab = true;
        }
        let offset = initial;
        save(next);
        this.bMarks[next] = pos;
        for (; pos < max; pos += 1) {
          const ch = this.code(pos);
          if (ch === TAB) offset += 4 - ((offset + this.bsCount[next]! + (adjustTab ? 1 : 0)) % 4);
          else if (ch === SPACE) offset += 1;
          else break;
        }
        lastLineEmpty = pos >= max;
        this.bsCount[next] = this.sCount[next]! + 1 + (spaceAfter ? 1 : 0);
        this.sCount[next] = offset - initial;
        this.tShift[next] = pos - this.bMarks[next]!;
        continue;
      }
      if (lastLineEmpty) break;
      if (this.terminates(this.endsBlockquote, next, endLine)) {
        if (this.blkIndent !== 0) {
          save(next);
          this.sCount[next] = this.sCount[next]! - this.blkIndent;
        }
        break;
      }
      save(next);
      this.sCount[next] = -1; // a lazy line: only a paragraph takes it
    }
    const oldIndent = this.blkIndent;
    this.blkIndent = 0;
    this.level += 1;
    this.tokenize(startLine, next);
    this.level -= 1;
    this.parentType = oldParent;
    this.mark(startLine, this.line);
    for (const [l, b, t, c, bs] of saved) {
      this.bMarks[l] = b;
      this.tShift[l] = t;
      this.sCount[l] = c;
      this.bsCount[l] = bs;
    }
    this.blkIndent = oldIndent;
    return true;
  }

  private hr(line: number, silent: boolean): boolean {
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

  private heading(line: number, silent: boolean): boolean {
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

  private lheading(startLine: number, endLine: number): boolean {
    if (this.sCount[startLine]! - this.blkIndent >= 4) return false;
    const oldParent = this.parentType;
    this.parentType = 'paragraph';
    let found = false;
    let next = startLine + 1;
    for (; next < endLine && !this.isEmpty(next); next += 1) {
      if (this.sCount[next]! - this.blkIndent > 3) continue;
      if (this.sCount[next]! >= this.blkIndent) {
        const max = this.eMarks[next]!;
        const pos = this.first(next);
        const marker = this.code(pos);
        if (pos < max && (marker === 0x2d || marker === 0x3d)) {
          if (this.skipSpaces(this.skipChars(pos, marker, max), max) >= max) {
            found = true;
            break;
          }
        }
      }
      if (this.sCount[next]! < 0) continue;
      if (this.terminates(this.endsParagraph, next, endLine)) break;
    }
    this.parentType = oldParent;
    if (!found) return false;
    this.line = next + 1;
    return true;
  }

  private paragraph(startLine: number, endLine: number): boolean {
    const oldParent = this.parentType;
    this.parentType = 'paragraph';
    let next = startLine + 1;
    for (; next < endLine && !this.isEmpty(next); next += 1) {
      if (this.sCount[next]! - this.blkIndent > 3) continue;
      if (this.sCount[next]! < 0) continue;
      if (this.terminates(this.endsParagraph, next, endLine)) break;
    }
    this.parentType = oldParent;
    this.line = next;
    return true;
  }

  private tableRow(line: number): string[] {
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

  private table(startLine: number, endLine: number, silent: boolean): boolean {
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
    if (silent) return true;
    const oldParent = this.parentType;
    this.parentType = 'table';
    let next = startLine + 2;
    for (; next < endLine; next += 1) {
      if (this.sCount[next]! < this.blkIndent) break;
      if (this.terminates(this.endsBlockquote, next, endLine)) break;
      if (this.isEmpty(next)) break;
      if (this.sCount[next]! - this.blkIndent >= 4) break;
    }
    this.parentType = oldParent;
    this.line = next;
    return true;
  }

  /** The position after a list marker on `line`, or -1; `ordered` tells which kind. */
  private listMarker(line: number): { after: number; ordered: boolean; value: number } | null {
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

  private list(startLine: number, endLine: number, silent: boolean): boolean {
    let next = startLine;
    if (this.sCount[next]! - this.blkIndent >= 4) return false;
    if (
      this.listIndent >= 0 &&
      this.sCount[next]! - this.listIndent >= 4 &&
      this.sCount[next]! < this.blkIndent
    )
      return false;
    const interrupting =
      silent && this.parentType === 'paragraph' && this.sCount[next]! >= this.blkIndent;
    let marker = this.listMarker(next);
    if (!marker) return false;
    if (interrupting && marker.ordered && marker.value !== 1) return false;
    if (interrupting && this.skipSpaces(marker.after, this.eMarks[next]!) >= this.eMarks[next]!)
      return false;
    if (silent) return true;
    const ordered = marker.ordered;
    const markerChar = this.code(marker.after - 1);
    const oldParent = this.parentType;
    this.parentType = 'list';
    this.level += 1;
    while (next < endLine && marker) {
      const max = this.eMarks[next]!;
      const initial = this.sCount[next]! + marker.after - this.first(next);
      let offset = initial;
      let pos = marker.after;
      for (; pos < max; pos += 1) {
        const ch = this.code(pos);
        if (ch === TAB) offset += 4 - ((offset + this.bsCount[next]!) % 4);
        else if (ch === SPACE) offset += 1;
        else break;
      }
      let after = pos >= max ? 1 : offset - initial;
      if (after > 4) after = 1;
      const oldTShift = this.tShift[next]!;
      const oldSCount = this.sCount[next]!;
      const oldListIndent = this.listIndent;
      this.listIndent = this.blkIndent;
      this.blkIndent = initial + after;
      this.tShift[next] = pos - this.bMarks[next]!;
      this.sCount[next] = offset;
      this.level += 1;
      if (pos >= max && this.isEmpty(next + 1)) this.line = Math.min(this.line + 2, endLine);
      else this.tokenize(next, endLine);
      this.level -= 1;
      this.blkIndent = this.listIndent;
      this.listIndent = oldListIndent;
      this.tShift[next] = oldTShift;
      this.sCount[next] = oldSCount;
      next = this.line;
      if (next >= endLine) break;
      if (this.sCount[next]! < this.blkIndent) break;
      if (this.sCount[next]! - this.blkIndent >= 4) break;
      if (this.terminates(this.endsList, next, endLine)) break;
      marker = this.listMarker(next);
      if (!marker || marker.ordered !== ordered || this.code(marker.after - 1) !== markerChar)
        break;
    }
    this.level -= 1;
    this.parentType = oldParent;
    this.line = next;
    return true;
  }
}
