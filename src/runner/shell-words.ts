/**
 * Just enough of POSIX shell syntax to see which programs a command line runs: quotes,
 * escapes, command separators and `$(...)`/backtick substitutions (returned as nested scripts).
 */

export interface ShellParse {
  /** Each simple command as its words, quotes removed. */
  commands: string[][];
  /** Scripts found inside `$(...)` and backticks, to be parsed in turn. */
  nested: string[];
}

const SEPARATORS = new Set([';', '&', '|', '\n', '(', ')']);

export function splitShell(script: string): ShellParse {
  const commands: string[][] = [];
  const nested: string[] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < script.length; i += 1) {
    const ch = script[i]!;
    if (ch === '\\' && i + 1 < script.length) {
      if (script[i + 1] !== '\n') {
        word += script[i + 1];
        inWord = true;
      }
      i += 1;
    } else if (ch === "'") {
      const end = script.indexOf("'", i + 1);
      const stop = end === -1 ? script.length : end;
      word += script.slice(i + 1, stop);
      inWord = true;
      i = stop;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < script.length && script[j] !== '"'; j += 1) {
        if (script[j] === '\\' && j + 1 < script.length) {
          j += 1;
          word += script[j];
        } else if (script[j] === '$' && script[j + 1] === '(') {
          const close = matchParen(script, j + 1);
          nested.push(script.slice(j + 2, close));
          word += script.slice(j, close + 1);
          j = close;
        } else {
          word += script[j];
        }
      }
      inWord = true;
      i = j;
    } else if (ch === '$' && script[i + 1] === '(') {
      const close = matchParen(script, i + 1);
      nested.push(script.slice(i + 2, close));
      word += script.slice(i, close + 1);
      inWord = true;
      i = close;
    } else if (ch === '`') {
      const end = script.indexOf('`', i + 1);
      const stop = end === -1 ? script.length : end;
      nested.push(script.slice(i + 1, stop));
      inWord = true;
      i = stop;
    } else if (ch === '#' && !inWord) {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end - 1;
    } else if (SEPARATORS.has(ch)) {
      endCommand();
    } else if (ch === ' ' || ch === '\t' || ch === '\r') {
      endWord();
    } else {
      word += ch;
      inWord = true;
    }
  }
  endCommand();
  return { commands, nested };
}

/** Index of the `)` closing the `(` at `open`, or the end of the script. */
function matchParen(script: string, open: number): number {
  let depth = 0;
  for (let i = open; i < script.length; i += 1) {
    if (script[i] === '(') depth += 1;
    else if (script[i] === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return script.length;
}
