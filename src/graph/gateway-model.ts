/**
 * The model port over the model gateway: the graph's jobs (confirm and name a topic shift, name
 * and summarise a span, extract ideas with a JSON schema, HyDE) run as gateway jobs of their own
 * kinds, so their model, tokens, cost and outcome are recorded with every other LLM job. A job
 * that fails (no model, budget spent, a timeout, an answer that does not fit the schema) falls
 * back to the offline rules: indexing and recall never stop for a model.
 *
 * Each job's instructions start with its `[watchkeeper:KIND]` tag and turns are written
 * `[#LINE role] text`, the conventions the simulated model reads.
 */
import type { Gateway } from '../gateway/index.js';
import type { ExtractedIdea, ExtractHints } from './extract.js';
import {
  EXTRACTION_SCHEMA,
  type GraphModel,
  offlineModel,
  parseExtraction,
  SHIFT_SCHEMA,
} from './model-port.js';
import type { SpanIdea } from './summary.js';
import type { Turn } from './turns.js';

export const GRAPH_JOB_KINDS = {
  shift: 'graph-shift',
  name: 'graph-name',
  summary: 'graph-summary',
  extract: 'graph-extract',
  hyde: 'graph-hyde',
} as const;

const SHIFT_SYSTEM = `[watchkeeper:graph-shift] You segment a conversation into topics. You get the last turns of the
current topic and the next turn. Does the next turn start a different topic? Answer with JSON:
{"shift": true or false, "name": "a short name (2-6 words) for the topic the next turn starts, or an empty string"}.`;

const NAME_SYSTEM = `[watchkeeper:graph-name] You name one topic of a conversation from what was said in it: 2 to 6
words, no quotes, no trailing punctuation. Answer with the name only.`;

const SUMMARY_SYSTEM = `[watchkeeper:graph-summary] You summarise one topic of a conversation in at most four short
sentences: the main focus, the decisions made, the conclusions reached and the questions still
open. Answer with the summary only.`;

const EXTRACT_SYSTEM = `[watchkeeper:graph-extract] You extract atomic ideas from conversation turns: decisions,
conclusions, questions, problems, solutions, todos and background context worth remembering.
Each idea is one self-contained sentence taken from one turn (give its line number), with its
intent, a confidence (0.3 tentative wording, 0.6 plain, 0.9 firm), and the entities it names
(project, technology, concept, person, file). Skip greetings, thanks and narration of tool use.
Answer with JSON: {"ideas": [{"line", "content", "intent", "confidence", "entities": [{"name", "type"}]}]}.`;

const HYDE_SYSTEM = `[watchkeeper:graph-hyde] Someone searches their past conversations. Write the passage (two or
three sentences) that a good answer would have said in those conversations, as if quoting it.
Answer with the passage only.`;

/** Turns per extraction job, and characters. */
const EXTRACT_TURNS = 20;
const EXTRACT_CHARS = 12_000;

function turnLine(line: number, role: string, text: string): string {
  return `[#${line} ${role}] ${text.replace(/\s+/g, ' ').trim()}`;
}

function ideasText(ideas: readonly SpanIdea[]): string {
  return ideas
    .slice(-60)
    .map((i, k) => turnLine(k + 1, i.intent, i.content))
    .join('\n');
}

function firstLine(text: string, max: number): string | null {
  const line =
    text
      .trim()
      .split('\n')[0]
      ?.replace(/^["'#\s]+|["'.\s]+$/g, '') ?? '';
  return line.length > 0 ? line.slice(0, max) : null;
}

/** The graph's jobs through the gateway; `name` says which backend and model (for the log). */
export function gatewayModel(gateway: Gateway, name = 'gateway'): GraphModel {
  const rules = offlineModel();

  const batches = (turns: readonly Turn[]): Turn[][] => {
    const out: Turn[][] = [];
    let current: Turn[] = [];
    let chars = 0;
    for (const t of turns) {
      if (t.role === 'tool') continue;
      if (
        current.length >= EXTRACT_TURNS ||
        (chars + t.text.length > EXTRACT_CHARS && current.length > 0)
      ) {
        out.push(current);
        current = [];
        chars = 0;
      }
      current.push(t);
      chars += t.text.length;
    }
    if (current.length > 0) out.push(current);
    return out;
  };

  return {
    name,
    offline: false,

    async confirmShift(before, after) {
      const r = await gateway.run<{ shift: boolean; name: string }>({
        kind: GRAPH_JOB_KINDS.shift,
        system: SHIFT_SYSTEM,
        prompt: `Current topic, last turns:\n${before.map((t, k) => turnLine(k + 1, 'turn', t.slice(0, 1500))).join('\n')}\n\nNext turn:\n${turnLine(before.length + 1, 'turn', after.slice(0, 1500))}`,
        schema: SHIFT_SCHEMA,
        ref: 'graph topic shift',
        maxTokens: 200,
      });
      if (!r.ok || !r.json) return rules.confirmShift(before, after);
      return { shift: r.json.shift, name: firstLine(r.json.name, 80) };
    },

    async nameSpan(ideas) {
      const r = await gateway.run({
        kind: GRAPH_JOB_KINDS.name,
        system: NAME_SYSTEM,
        prompt: ideasText(ideas),
        ref: 'graph span name',
        maxTokens: 60,
      });
      return (r.ok ? firstLine(r.text, 80) : null) ?? rules.nameSpan(ideas);
    },

    async summariseSpan(spanName, ideas) {
      const r = await gateway.run({
        kind: GRAPH_JOB_KINDS.summary,
        system: SUMMARY_SYSTEM,
        prompt: `Topic: ${spanName}\n\n${ideasText(ideas)}`,
        ref: `graph span summary: ${spanName.slice(0, 60)}`,
        maxTokens: 400,
      });
      const text = r.ok ? r.text.trim().slice(0, 1200) : '';
      return text.length > 0 ? text : rules.summariseSpan(spanName, ideas);
    },

    async extractIdeas(turns, hints: ExtractHints) {
      const out: ExtractedIdea[] = [];
      for (const batch of batches(turns)) {
        const r = await gateway.run({
          kind: GRAPH_JOB_KINDS.extract,
          system: EXTRACT_SYSTEM,
          prompt: batch.map((t) => turnLine(t.line, t.role, t.text.slice(0, 4000))).join('\n'),
          schema: EXTRACTION_SCHEMA,
          ref: `graph ideas of lines ${batch[0]!.line}-${batch[batch.length - 1]!.line}`,
        });
        const parsed = r.ok ? parseExtraction(r.json, batch, hints) : null;
        out.push(...(parsed ?? (await rules.extractIdeas(batch, hints))));
      }
      return out;
    },

    async hyde(query) {
      const r = await gateway.run({
        kind: GRAPH_JOB_KINDS.hyde,
        system: HYDE_SYSTEM,
        prompt: query,
        ref: 'graph remember (HyDE)',
        maxTokens: 300,
      });
      return r.ok && r.text.trim().length > 0 ? r.text.trim().slice(0, 2000) : null;
    },
  };
}
