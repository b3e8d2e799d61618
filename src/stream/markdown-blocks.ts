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
import { LineState, markdownLines, SPACE, TAB } from './markdown-lines.js';

export { markdownLines };

/** Past this nesting depth markdown-it renders nothing more; those lines count as quoted. */
const MAX_NESTING = 100;

type Rule = (line: number, end: number, silent: boolean) => boolean;

/** For each line, true when it is inside a blockquote, a fence or an indented code block. */
export function quotedLines(lines: readonly string[]): boolean[] {
  return new BlockScan(lines).run();
}

class BlockScan extends LineState {
  run(): boolean[] {
    this.tokenize(0, this.quoted.length);
    return this.quoted;
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

  private table(startLine: number, endLine: number, silent: boolean): boolean {
    if (!this.tableHead(startLine, endLine)) return false;
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
