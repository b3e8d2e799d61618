/** Lines of a file or a text, numbered from 1, read as a stream (a file is never read whole). */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface NumberedLine {
  n: number;
  text: string;
}

export async function* fileLines(path: string): AsyncGenerator<NumberedLine> {
  const rl = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let n = 0;
  for await (const text of rl) yield { n: ++n, text };
}

export async function* textLines(text: string): AsyncGenerator<NumberedLine> {
  let n = 0;
  for (const line of text.split(/\r?\n/)) yield { n: ++n, text: line };
}
