/**
 * The first reading of an import file: the ids of its memory lines and the links between them
 * (superseded_by, merged_into), so that before anything is written a second line with an id
 * already used, and every line on a cycle of links (a memory replaced, through others or
 * directly, by itself), is refused. Only numbers are kept per line, whatever the file's size.
 */
import type { NumberedLine } from './lines.js';

interface Node {
  line: number;
  out: number[];
}

function positiveInt(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null;
}

/** The lines to refuse before import, each with why. */
export async function linkProblems(
  lines: AsyncIterable<NumberedLine>,
): Promise<Map<number, string>> {
  const problems = new Map<number, string>();
  const nodes = new Map<number, Node>();
  let header = true;
  for await (const { n, text, tooLong } of lines) {
    if (tooLong !== undefined || text.trim() === '') continue;
    if (header) {
      header = false;
      continue;
    }
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof v !== 'object' || v === null || (v as { type?: unknown }).type !== 'memory')
      continue;
    const r = v as Record<string, unknown>;
    const id = positiveInt(r.id);
    if (id === null) continue;
    const first = nodes.get(id);
    if (first) {
      problems.set(
        n,
        `id: ${id} is the id of line ${first.line} too; each memory of a file has an id of its own`,
      );
      continue;
    }
    const out = [positiveInt(r.superseded_by), positiveInt(r.merged_into)].filter(
      (x): x is number => x !== null,
    );
    nodes.set(id, { line: n, out });
  }
  for (const cycle of cycles(nodes)) {
    const where = cycle.map((id) => nodes.get(id)!.line).sort((a, b) => a - b);
    for (const line of where) {
      problems.set(
        line,
        `superseded_by/merged_into: a cycle of links through line${where.length === 1 ? '' : 's'} ${where.join(', ')} (a memory cannot be replaced by itself)`,
      );
    }
  }
  return problems;
}

/** The cycles of the graph (strongly connected components of two or more, or a self-link). */
function cycles(nodes: Map<number, Node>): number[][] {
  // Tarjan's algorithm without recursion: a file may chain 100,000 memories.
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const found: number[][] = [];
  let next = 0;
  for (const root of nodes.keys()) {
    if (index.has(root)) continue;
    const work: { id: number; edge: number }[] = [{ id: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next);
    next += 1;
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const out = nodes.get(top.id)!.out.filter((to) => nodes.has(to));
      if (top.edge < out.length) {
        const to = out[top.edge]!;
        top.edge += 1;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next);
          next += 1;
          stack.push(to);
          onStack.add(to);
          work.push({ id: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.id, Math.min(low.get(top.id)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(top.id)!));
      if (low.get(top.id) !== index.get(top.id)) continue;
      const component: number[] = [];
      for (;;) {
        const id = stack.pop()!;
        onStack.delete(id);
        component.push(id);
        if (id === top.id) break;
      }
      if (component.length > 1 || out.includes(top.id)) found.push(component);
    }
  }
  return found;
}
