/**
 * How the simulated model answers the memory graph's gateway jobs (`[watchkeeper:graph-*]`),
 * deterministically, so the demo, the tests and the benchmark index "with the model" offline.
 * The answers are recognisably the model's (span names start "Sim:", summaries "Simulated
 * summary"), so a test can tell which path produced them.
 *
 * - graph-shift: always a shift, named after the next turn's first three words.
 * - graph-name: the first idea's first three words.
 * - graph-summary: how many ideas the topic holds.
 * - graph-extract: one idea per sentence of four words or more, its intent from a few words
 *   ("fixed" a solution, "decided" a decision, a trailing "?" a question...), "maybe" tentative,
 *   Postgres named as a technology.
 * - graph-hyde: "We decided about QUERY."
 *
 * Turns are read from the `[#N label] text` lines the graph writes (the label is a role, or an
 * idea's intent). Knows nothing of watchkeeper's types: only the job conventions.
 */

/** A graph job's answer: an object the client asked JSON for, or plain text. */
export type GraphJobAnswer = { json: unknown } | { text: string };

interface Line {
  n: number;
  text: string;
}

/** `[#N label] text` lines, one per line (the graph writes each turn on one line). */
function lines(text: string): Line[] {
  return [...text.matchAll(/^\[#(\d+) [a-z]+\] (.*)$/gm)].map((m) => ({
    n: Number(m[1]),
    text: m[2]!,
  }));
}

const firstWords = (text: string | undefined, fallback: string): string =>
  text?.split(/\s+/).slice(0, 3).join(' ') || fallback;

function intentOf(sentence: string): string {
  if (sentence.trim().endsWith('?')) return 'question';
  if (/\b(fixed|solved|resolved)\b/i.test(sentence)) return 'solution';
  if (/\b(decided|changed|instead|switch)\b/i.test(sentence)) return 'decision';
  if (/\b(problem|failing|fails|blocked)\b/i.test(sentence)) return 'problem';
  if (/\b(need to|todo)\b/i.test(sentence)) return 'todo';
  return 'context';
}

function extract(prompt: string) {
  const ideas = lines(prompt).flatMap((l) =>
    l.text
      .split(/(?<=[.!?])\s+/)
      .filter((s) => s.split(/\s+/).length >= 4)
      .map((s) => ({
        line: l.n,
        content: s.slice(0, 600),
        intent: intentOf(s),
        confidence: /\bmaybe\b/i.test(s) ? 0.3 : 0.7,
        entities: /postgres/i.test(s) ? [{ name: 'Postgres', type: 'technology' }] : [],
      })),
  );
  return { ideas };
}

/** The answer to a graph job of `kind` (`graph-shift`...), or null for any other kind. */
export function answerGraphJob(kind: string, prompt: string): GraphJobAnswer | null {
  switch (kind) {
    case 'graph-shift': {
      const next = prompt.slice(Math.max(0, prompt.indexOf('Next turn:')));
      return { json: { shift: true, name: `Sim: ${firstWords(lines(next)[0]?.text, 'topic')}` } };
    }
    case 'graph-name':
      return { text: `Sim: ${firstWords(lines(prompt)[0]?.text, 'topic')}` };
    case 'graph-summary':
      return { text: `Simulated summary: ${lines(prompt).length} ideas.` };
    case 'graph-extract':
      return { json: extract(prompt) };
    case 'graph-hyde':
      return { text: `We decided about ${prompt.trim()}.` };
    default:
      return null;
  }
}
