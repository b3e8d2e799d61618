/**
 * A document's YAML front matter (`---` lines around `name:`, `description:`, as Claude Code's
 * skills carry): read with the `yaml` package, and blanked out of the text so that the Markdown
 * after it keeps its line numbers.
 */
import { parse } from 'yaml';

export interface FrontMatter {
  /** The text with the front matter's lines left empty. */
  body: string;
  /** `description:`, when the front matter has one as text. */
  description: string | null;
  /** What is wrong with it: a line and a message. */
  problem: { line: number; message: string } | null;
}

const FENCE = /^---\s*$/;

export function frontMatter(text: string): FrontMatter {
  const lines = text.split(/\r?\n/);
  const none = { body: text, description: null, problem: null };
  if (!FENCE.test(lines[0] ?? '')) return none;
  const end = lines.findIndex((l, i) => i > 0 && FENCE.test(l));
  if (end < 0) return none;
  const body = [...lines.slice(0, end + 1).map(() => ''), ...lines.slice(end + 1)].join('\n');
  try {
    const data: unknown = parse(lines.slice(1, end).join('\n'));
    const description =
      data && typeof data === 'object' && 'description' in data ? data.description : null;
    return {
      body,
      description:
        typeof description === 'string' && description.trim() ? description.trim() : null,
      problem: null,
    };
  } catch (err) {
    const line = 1 + ((err as { linePos?: { line: number }[] }).linePos?.[0]?.line ?? 1);
    return {
      body,
      description: null,
      problem: {
        line,
        message: `the front matter is not YAML: ${(err as Error).message.split('\n')[0]}`,
      },
    };
  }
}
